import functools

import numpy

from chainer import variable
from chainer.distributions import _distribution
from chainer.distributions import _math


class Exponential(_distribution.Distribution):
    """Exponential distribution with rate ``lam``.

    .. math:: p(x; \\lambda) = \\lambda e^{-\\lambda x}, \\quad x \\ge 0

    Samples are reparameterized.

    Args:
        lam (~chainer.Variable or :ref:`ndarray`): Rate
            :math:`\\lambda > 0`; its shape is the batch shape.
    """

    def __init__(self, lam):
        (self.lam,) = _distribution.as_params("Exponential", lam=lam)

    @property
    def batch_shape(self):
        return self.lam.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"lam": self.lam}

    @property
    def support(self):
        return "positive"

    @functools.cached_property
    def mean(self):
        return 1.0 / self.lam

    @property
    def mode(self):
        return variable.Variable(_distribution.full(self.lam, 0.0))

    @functools.cached_property
    def variance(self):
        return 1.0 / (self.lam * self.lam)

    @property
    def stddev(self):
        return self.mean

    @functools.cached_property
    def entropy(self):
        return 1.0 - _math.log(self.lam)

    def log_prob(self, x):
        x = _distribution.as_points(x, self.lam.dtype)
        logp = _math.log(self.lam) - self.lam * x
        return _math.where(x.array >= 0, logp, -numpy.inf)

    def cdf(self, x):
        x = _distribution.as_points(x, self.lam.dtype)
        y = -_math.expm1(-self.lam * x)
        return _math.where(x.array >= 0, y, 0.0)

    def survival_function(self, x):
        x = _distribution.as_points(x, self.lam.dtype)
        y = _math.exp(-self.lam * x)
        return _math.where(x.array >= 0, y, 1.0)

    def icdf(self, x):
        x = _distribution.as_points(x, self.lam.dtype)
        return -_math.log1p(-x) / self.lam

    def sample_n(self, n):
        lam = self.lam
        eps = _distribution.noise(
            lam.xp, "standard_exponential", (n, *lam.shape), lam.dtype
        )
        return eps / lam


@_distribution.register_kl(Exponential, Exponential)
def _kl_exponential_exponential(dist1, dist2):
    return _math.log(dist1.lam) - _math.log(dist2.lam) + dist2.lam / dist1.lam - 1.0
