import functools

import numpy

from chainer.distributions import _distribution
from chainer.distributions import _math


class Pareto(_distribution.Distribution):
    """Pareto (type I) distribution.

    .. math::
        p(x; x_m, \\alpha) = \\frac{\\alpha x_m^\\alpha}{x^{\\alpha + 1}},
        \\quad x \\ge x_m

    The mean is infinite for :math:`\\alpha \\le 1` and the variance for
    :math:`\\alpha \\le 2`. Samples are reparameterized.

    Args:
        scale (~chainer.Variable or :ref:`ndarray`): Minimum value
            :math:`x_m > 0`; its shape is the batch shape.
        alpha (~chainer.Variable or :ref:`ndarray`): Shape
            :math:`\\alpha > 0`, broadcastable with ``scale``.
    """

    def __init__(self, scale, alpha):
        self.scale, self.alpha = _distribution.as_params(
            "Pareto", scale=scale, alpha=alpha
        )

    @property
    def batch_shape(self):
        return self.scale.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"scale": self.scale, "alpha": self.alpha}

    @property
    def support(self):
        return "[scale, inf]"

    @property
    def mode(self):
        return self.scale

    @functools.cached_property
    def mean(self):
        finite = self.alpha.array > 1
        alpha = _math.where(finite, self.alpha, 2.0)
        return _math.where(finite, alpha * self.scale / (alpha - 1.0), numpy.inf)

    @functools.cached_property
    def variance(self):
        finite = self.alpha.array > 2
        alpha = _math.where(finite, self.alpha, 3.0)
        am1 = alpha - 1.0
        var = self.scale * self.scale * alpha / (am1 * am1 * (alpha - 2.0))
        return _math.where(finite, var, numpy.inf)

    @functools.cached_property
    def entropy(self):
        return _math.log(self.scale) - _math.log(self.alpha) + 1.0 / self.alpha + 1.0

    def _inside(self, x):
        x = _distribution.as_points(x, self.scale.dtype)
        inside = x.array >= self.scale.array
        # Outside the support, a stand-in point keeps the values and
        # gradients of the masked branch finite.
        return _math.where(inside, x, self.scale * 2.0), inside

    def log_prob(self, x):
        x, inside = self._inside(x)
        alpha = self.alpha
        logp = (
            _math.log(alpha)
            + alpha * _math.log(self.scale)
            - (alpha + 1.0) * _math.log(x)
        )
        return _math.where(inside, logp, -numpy.inf)

    def cdf(self, x):
        x, inside = self._inside(x)
        y = 1.0 - _math.exp(self.alpha * (_math.log(self.scale) - _math.log(x)))
        return _math.where(inside, y, 0.0)

    def icdf(self, x):
        x = _distribution.as_points(x, self.scale.dtype)
        return self.scale * _math.exp(-_math.log1p(-x) / self.alpha)

    def sample_n(self, n):
        scale = self.scale
        # -log(1 - U) is a standard exponential draw: X = scale * exp(E / alpha)
        # inverts the CDF.
        eps = _distribution.noise(
            scale.xp, "standard_exponential", (n, *scale.shape), scale.dtype
        )
        return scale * _math.exp(eps / self.alpha)


@_distribution.register_kl(Pareto, Pareto)
def _kl_pareto_pareto(dist1, dist2):
    a1, a2 = dist1.alpha, dist2.alpha
    kl = (
        a2 * (_math.log(dist1.scale) - _math.log(dist2.scale))
        + _math.log(a1)
        - _math.log(a2)
        + (a2 - a1) / a1
    )
    return _math.where(dist1.scale.array >= dist2.scale.array, kl, numpy.inf)
