import functools
import math
import warnings

from chainer import variable
from chainer.distributions import _distribution
from chainer.distributions import _math


class Cauchy(_distribution.Distribution):
    """Cauchy distribution.

    .. math::
        p(x; x_0, \\gamma) = \\frac{1}{\\pi \\gamma
            \\left[1 + \\left(\\frac{x - x_0}{\\gamma}\\right)^2\\right]}

    Its mean and variance are undefined: they are NaN, with a
    ``RuntimeWarning``. Samples are reparameterized.

    Args:
        loc (~chainer.Variable or :ref:`ndarray`): Location :math:`x_0`; its
            shape is the batch shape.
        scale (~chainer.Variable or :ref:`ndarray`): Scale
            :math:`\\gamma > 0`, broadcastable with ``loc``.
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = _distribution.as_params("Cauchy", loc=loc, scale=scale)

    @property
    def batch_shape(self):
        return self.loc.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"loc": self.loc, "scale": self.scale}

    @property
    def support(self):
        return "real"

    @property
    def mode(self):
        return self.loc

    @property
    def mean(self):
        warnings.warn(
            "Mean of the cauchy distribution is undefined.", RuntimeWarning, 2
        )
        return variable.Variable(_distribution.full(self.loc, float("nan")))

    @property
    def variance(self):
        warnings.warn(
            "Variance of the cauchy distribution is undefined.", RuntimeWarning, 2
        )
        return variable.Variable(_distribution.full(self.loc, float("nan")))

    @functools.cached_property
    def entropy(self):
        return _math.log(self.scale) + math.log(4 * math.pi)

    def _z(self, x):
        return (_distribution.as_points(x, self.loc.dtype) - self.loc) / self.scale

    def log_prob(self, x):
        z = self._z(x)
        return -math.log(math.pi) - _math.log(self.scale) - _math.log1p(z * z)

    def cdf(self, x):
        return _math.arctan(self._z(x)) * (1 / math.pi) + 0.5

    def icdf(self, x):
        x = _distribution.as_points(x, self.loc.dtype)
        return self.loc + self.scale * _math.tan((x - 0.5) * math.pi)

    def sample_n(self, n):
        eps = _distribution.noise(
            self.loc.xp, "standard_cauchy", (n, *self.loc.shape), self.loc.dtype
        )
        return self.loc + self.scale * eps
