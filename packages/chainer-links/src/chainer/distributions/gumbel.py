import functools
import math

from chainer.distributions import _distribution
from chainer.distributions import _math


class Gumbel(_distribution.Distribution):
    """Gumbel (type-I extreme value) distribution.

    .. math::
        p(x; \\mu, \\beta) = \\frac{1}{\\beta} e^{-(z + e^{-z})}, \\quad
        z = \\frac{x - \\mu}{\\beta}

    Samples are reparameterized. The KL divergence uses SciPy's special
    functions (``pip install chainer-links[special]``).

    Args:
        loc (~chainer.Variable or :ref:`ndarray`): Location :math:`\\mu`; its
            shape is the batch shape.
        scale (~chainer.Variable or :ref:`ndarray`): Scale
            :math:`\\beta > 0`, broadcastable with ``loc``.
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = _distribution.as_params("Gumbel", loc=loc, scale=scale)

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

    @functools.cached_property
    def mean(self):
        return self.loc + _math.EULER * self.scale

    @functools.cached_property
    def variance(self):
        return self.scale * self.scale * (math.pi**2 / 6)

    @functools.cached_property
    def entropy(self):
        return _math.log(self.scale) + (_math.EULER + 1.0)

    def _z(self, x):
        return (_distribution.as_points(x, self.loc.dtype) - self.loc) / self.scale

    def log_prob(self, x):
        z = self._z(x)
        return -_math.log(self.scale) - z - _math.exp(-z)

    def cdf(self, x):
        return _math.exp(-_math.exp(-self._z(x)))

    def log_cdf(self, x):
        return -_math.exp(-self._z(x))

    def icdf(self, x):
        x = _distribution.as_points(x, self.loc.dtype)
        return self.loc - self.scale * _math.log(-_math.log(x))

    def sample_n(self, n):
        eps = _distribution.noise(
            self.loc.xp, "gumbel", (n, *self.loc.shape), self.loc.dtype
        )
        return self.loc + self.scale * eps


@_distribution.register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(dist1, dist2):
    ratio = dist1.scale / dist2.scale
    shift = (dist1.loc - dist2.loc) / dist2.scale
    return (
        _math.log(dist2.scale)
        - _math.log(dist1.scale)
        + _math.EULER * (ratio - 1.0)
        + _math.exp(_math.lgamma(ratio + 1.0) - shift)
        - 1.0
        + shift
    )
