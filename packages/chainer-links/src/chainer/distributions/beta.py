import functools

import numpy

from chainer import variable
from chainer.distributions import _distribution
from chainer.distributions import _math


class Beta(_distribution.Distribution):
    """Beta distribution on ``[0, 1]``.

    .. math::
        p(x; a, b) = \\frac{x^{a - 1} (1 - x)^{b - 1}}{B(a, b)}

    Log-density, entropy and moments use SciPy's special functions
    (``pip install chainer-links[special]``).

    Args:
        a (~chainer.Variable or :ref:`ndarray`): Shape parameter
            :math:`a > 0`; its shape is the batch shape.
        b (~chainer.Variable or :ref:`ndarray`): Shape parameter
            :math:`b > 0`, broadcastable with ``a``.
    """

    def __init__(self, a, b):
        self.a, self.b = _distribution.as_params("Beta", a=a, b=b)

    @property
    def batch_shape(self):
        return self.a.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"a": self.a, "b": self.b}

    @property
    def support(self):
        return "[0, 1]"

    @functools.cached_property
    def _apb(self):
        return self.a + self.b

    @functools.cached_property
    def _lbeta(self):
        return _math.lbeta(self.a, self.b)

    @functools.cached_property
    def mean(self):
        return self.a / self._apb

    @functools.cached_property
    def variance(self):
        apb = self._apb
        return self.a * self.b / (apb * apb * (apb + 1.0))

    @functools.cached_property
    def entropy(self):
        a, b = self.a, self.b
        return (
            self._lbeta
            - (a - 1.0) * _math.digamma(a)
            - (b - 1.0) * _math.digamma(b)
            + (self._apb - 2.0) * _math.digamma(self._apb)
        )

    def log_prob(self, x):
        x = _distribution.as_points(x, self.a.dtype)
        inside = (x.array >= 0) & (x.array <= 1)
        x = _math.where(inside, x, 0.5)
        logp = (
            (self.a - 1.0) * _math.log(x)
            + (self.b - 1.0) * _math.log1p(-x)
            - self._lbeta
        )
        return _math.where(inside, logp, -numpy.inf)

    def sample_n(self, n):
        a = self.a
        eps = _distribution.noise(
            a.xp, "beta", (n, *a.shape), a.dtype, a.array, self.b.array
        )
        return variable.Variable(eps)


@_distribution.register_kl(Beta, Beta)
def _kl_beta_beta(dist1, dist2):
    a1, b1, a2, b2 = dist1.a, dist1.b, dist2.a, dist2.b
    return (
        dist2._lbeta
        - dist1._lbeta
        + (a1 - a2) * _math.digamma(a1)
        + (b1 - b2) * _math.digamma(b1)
        + (a2 - a1 + b2 - b1) * _math.digamma(dist1._apb)
    )
