import functools
import math

from chainer import backend
from chainer.distributions import _distribution
from chainer.distributions import _math
from chainer.variable import Variable as _Variable


class Laplace(_distribution.Distribution):
    """Laplace (double exponential) distribution.

    .. math::
        p(x; \\mu, b) = \\frac{1}{2b} \\exp\\left(-\\frac{|x - \\mu|}{b}\\right)

    Samples are reparameterized.

    Args:
        loc (~chainer.Variable or :ref:`ndarray`): Location :math:`\\mu`; its
            shape is the batch shape.
        scale (~chainer.Variable or :ref:`ndarray`): Scale :math:`b > 0`,
            broadcastable with ``loc``.
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = _distribution.as_params("Laplace", loc=loc, scale=scale)

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
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @functools.cached_property
    def variance(self):
        return self.scale * self.scale * 2.0

    @functools.cached_property
    def stddev(self):
        return self.scale * math.sqrt(2.0)

    @functools.cached_property
    def entropy(self):
        return _math.log(self.scale) + (math.log(2.0) + 1.0)

    def _z(self, x):
        return (_distribution.as_points(x, self.loc.dtype) - self.loc) / self.scale

    def log_prob(self, x):
        z = self._z(x)
        return -_math.log(self.scale) - math.log(2.0) - _math.absolute(z)

    def cdf(self, x):
        z = self._z(x)
        # 1/2 e^z below the location, 1 - 1/2 e^-z above: one expm1 for both.
        sign = z.xp.sign(z.array)
        return 0.5 - 0.5 * sign * _math.expm1(-_math.absolute(z))

    def icdf(self, x):
        x = _distribution.as_points(x, self.loc.dtype)
        centred = x - 0.5
        sign = centred.xp.sign(centred.array)
        return self.loc - self.scale * sign * _math.log1p(
            -2.0 * _math.absolute(centred)
        )

    def sample_n(self, n):
        eps = _distribution.noise(
            self.loc.xp, "laplace", (n, *self.loc.shape), self.loc.dtype
        )
        return self.loc + self.scale * eps


def _standard(x):
    # Standard Laplace (location 0, scale 1) in the dtype and device of x.
    xp = x.xp if isinstance(x, _Variable) else backend.get_array_module(x)
    dtype = x.dtype
    return Laplace(xp.zeros((), dtype), xp.ones((), dtype))


def _laplace_cdf(x):
    """CDF of the standard Laplace distribution (differentiable)."""
    return _standard(x).cdf(x)


def _laplace_icdf(x):
    """Inverse CDF of the standard Laplace distribution (differentiable)."""
    return _standard(x).icdf(x)


@_distribution.register_kl(Laplace, Laplace)
def _kl_laplace_laplace(dist1, dist2):
    diff = _math.absolute(dist1.loc - dist2.loc)
    return (
        _math.log(dist2.scale)
        - _math.log(dist1.scale)
        + diff / dist2.scale
        + dist1.scale / dist2.scale * _math.exp(-diff / dist1.scale)
        - 1.0
    )
