import functools

import numpy

from chainer.distributions import _distribution
from chainer.distributions import _math


class LogNormal(_distribution.Distribution):
    """Log-normal distribution: :math:`\\log X` is normal.

    .. math::
        p(x; \\mu, \\sigma) = \\frac{1}{x \\sigma \\sqrt{2\\pi}}
            \\exp\\left(-\\frac{(\\log x - \\mu)^2}{2\\sigma^2}\\right)

    Samples are reparameterized.

    Args:
        mu (~chainer.Variable or :ref:`ndarray`): Mean of :math:`\\log X`; its
            shape is the batch shape.
        sigma (~chainer.Variable or :ref:`ndarray`): Standard deviation of
            :math:`\\log X` (positive), broadcastable with ``mu``.
    """

    def __init__(self, mu, sigma):
        self.mu, self.sigma = _distribution.as_params("LogNormal", mu=mu, sigma=sigma)

    @property
    def batch_shape(self):
        return self.mu.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"mu": self.mu, "sigma": self.sigma}

    @property
    def support(self):
        return "positive"

    @functools.cached_property
    def mean(self):
        return _math.exp(self.mu + 0.5 * self.sigma * self.sigma)

    @functools.cached_property
    def mode(self):
        return _math.exp(self.mu - self.sigma * self.sigma)

    @functools.cached_property
    def variance(self):
        s2 = self.sigma * self.sigma
        return _math.expm1(s2) * _math.exp(2.0 * self.mu + s2)

    @functools.cached_property
    def entropy(self):
        return self.mu + _math.log(self.sigma) + 0.5 * (_math.LOG_2PI + 1.0)

    def log_prob(self, x):
        x = _distribution.as_points(x, self.mu.dtype)
        inside = x.array > 0
        log_x = _math.log(_math.where(inside, x, 1.0))
        z = (log_x - self.mu) / self.sigma
        logp = -0.5 * _math.LOG_2PI - _math.log(self.sigma) - log_x - 0.5 * z * z
        return _math.where(inside, logp, -numpy.inf)

    def sample_n(self, n):
        eps = _distribution.noise(
            self.mu.xp, "standard_normal", (n, *self.mu.shape), self.mu.dtype
        )
        return _math.exp(self.mu + self.sigma * eps)


@_distribution.register_kl(LogNormal, LogNormal)
def _kl_log_normal_log_normal(dist1, dist2):
    diff = (dist1.mu - dist2.mu) / dist2.sigma
    ratio = dist1.sigma / dist2.sigma
    return (
        _math.log(dist2.sigma)
        - _math.log(dist1.sigma)
        + 0.5 * (ratio * ratio + diff * diff)
        - 0.5
    )
