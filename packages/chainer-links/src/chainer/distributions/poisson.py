import functools

from chainer import variable
from chainer.distributions import _distribution
from chainer.distributions import _math


class Poisson(_distribution.Distribution):
    """Poisson distribution.

    .. math:: P(x; \\lambda) = \\frac{\\lambda^x e^{-\\lambda}}{x!},
        \\quad x = 0, 1, \\ldots

    The log-probability uses SciPy's special functions
    (``pip install chainer-links[special]``).

    Args:
        lam (~chainer.Variable or :ref:`ndarray`): Rate
            :math:`\\lambda > 0`; its shape is the batch shape.
    """

    def __init__(self, lam):
        (self.lam,) = _distribution.as_params("Poisson", lam=lam)

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
        return "non negative integer"

    @property
    def mean(self):
        return self.lam

    @property
    def variance(self):
        return self.lam

    @functools.cached_property
    def _log_lam(self):
        return _math.log(self.lam)

    def log_prob(self, x):
        x = _distribution.as_points(x, self.lam.dtype)
        return x * self._log_lam - self.lam - _math.lgamma(x + 1.0)

    def sample_n(self, n):
        lam = self.lam
        eps = _distribution.noise(
            lam.xp, "poisson", (n, *lam.shape), lam.dtype, lam.array
        )
        return variable.Variable(eps)


@_distribution.register_kl(Poisson, Poisson)
def _kl_poisson_poisson(dist1, dist2):
    lam1 = dist1.lam
    return lam1 * (dist1._log_lam - dist2._log_lam) - lam1 + dist2.lam
