import functools

import numpy

from chainer import variable
from chainer.distributions import _distribution
from chainer.distributions import _math


class Gamma(_distribution.Distribution):
    """Gamma distribution with shape ``k`` and scale ``theta``.

    .. math::
        p(x; k, \\theta) = \\frac{x^{k - 1} e^{-x / \\theta}}
            {\\Gamma(k) \\theta^k}, \\quad x > 0

    Log-density and entropy use SciPy's special functions
    (``pip install chainer-links[special]``).

    Args:
        k (~chainer.Variable or :ref:`ndarray`): Shape :math:`k > 0`; its
            shape is the batch shape.
        theta (~chainer.Variable or :ref:`ndarray`): Scale
            :math:`\\theta > 0`, broadcastable with ``k``.
    """

    def __init__(self, k, theta):
        self.k, self.theta = _distribution.as_params("Gamma", k=k, theta=theta)

    @property
    def batch_shape(self):
        return self.k.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"k": self.k, "theta": self.theta}

    @property
    def support(self):
        return "positive"

    @functools.cached_property
    def mean(self):
        return self.k * self.theta

    @functools.cached_property
    def variance(self):
        return self.mean * self.theta

    @functools.cached_property
    def entropy(self):
        k = self.k
        return (
            k + _math.log(self.theta) + _math.lgamma(k) + (1.0 - k) * _math.digamma(k)
        )

    def log_prob(self, x):
        x = _distribution.as_points(x, self.k.dtype)
        inside = x.array > 0
        x = _math.where(inside, x, 1.0)
        k, theta = self.k, self.theta
        logp = (
            (k - 1.0) * _math.log(x)
            - x / theta
            - _math.lgamma(k)
            - k * _math.log(theta)
        )
        return _math.where(inside, logp, -numpy.inf)

    def sample_n(self, n):
        k, theta = self.k, self.theta
        eps = _distribution.noise(
            k.xp, "gamma", (n, *k.shape), k.dtype, k.array, theta.array
        )
        return variable.Variable(eps)


@_distribution.register_kl(Gamma, Gamma)
def _kl_gamma_gamma(dist1, dist2):
    k1, t1, k2, t2 = dist1.k, dist1.theta, dist2.k, dist2.theta
    return (
        (k1 - k2) * _math.digamma(k1)
        - _math.lgamma(k1)
        + _math.lgamma(k2)
        + k2 * (_math.log(t2) - _math.log(t1))
        + k1 * (t1 - t2) / t2
    )
