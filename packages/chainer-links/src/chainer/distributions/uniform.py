import functools
import math

import numpy

from chainer.distributions import _distribution
from chainer.distributions import _math


class Uniform(_distribution.Distribution):
    """Continuous uniform distribution on ``[low, high]``.

    .. math:: p(x; l, h) = \\frac{1}{h - l}, \\quad l \\le x \\le h

    Give either ``low`` and ``high`` or ``loc`` and ``scale`` (then
    ``low = loc`` and ``high = loc + scale``), all as keyword arguments.
    Samples are reparameterized.

    Args:
        low (~chainer.Variable or :ref:`ndarray`): Lower bound; its shape is
            the batch shape.
        high (~chainer.Variable or :ref:`ndarray`): Upper bound, greater than
            ``low``.
        loc (~chainer.Variable or :ref:`ndarray`): Lower bound, with ``scale``.
        scale (~chainer.Variable or :ref:`ndarray`): Width ``high - low > 0``.
    """

    def __init__(self, **kwargs):
        unknown = set(kwargs) - {"low", "high", "loc", "scale"}
        if unknown:
            raise TypeError(f"Uniform got unexpected keywords: {sorted(unknown)}")
        given = {k for k, v in kwargs.items() if v is not None}
        if given == {"low", "high"}:
            self.low, self.high = _distribution.as_params(
                "Uniform", low=kwargs["low"], high=kwargs["high"]
            )
        elif given == {"loc", "scale"}:
            self.loc, self.scale = _distribution.as_params(
                "Uniform", loc=kwargs["loc"], scale=kwargs["scale"]
            )
        else:
            raise ValueError(
                "Uniform: either `low, high` or `loc, scale` (not both) must be given"
            )

    @functools.cached_property
    def low(self):
        """~chainer.Variable: The lower bound."""
        return self.loc

    @functools.cached_property
    def high(self):
        """~chainer.Variable: The upper bound."""
        return self.loc + self.scale

    @functools.cached_property
    def loc(self):
        """~chainer.Variable: The lower bound (same as ``low``)."""
        return self.low

    @functools.cached_property
    def scale(self):
        """~chainer.Variable: The width ``high - low``."""
        return self.high - self.low

    @property
    def batch_shape(self):
        return self.low.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"low": self.low, "high": self.high}

    @property
    def support(self):
        return "[low, high]"

    @functools.cached_property
    def mean(self):
        return (self.low + self.high) * 0.5

    @functools.cached_property
    def variance(self):
        return self.scale * self.scale * (1.0 / 12.0)

    @functools.cached_property
    def stddev(self):
        return self.scale * (1.0 / math.sqrt(12.0))

    @functools.cached_property
    def entropy(self):
        return _math.log(self.scale)

    def log_prob(self, x):
        x = _distribution.as_points(x, self.low.dtype)
        inside = (x.array >= self.low.array) & (x.array <= self.high.array)
        logp = _math.broadcast_to(-_math.log(self.scale), inside.shape)
        return _math.where(inside, logp, -numpy.inf)

    def cdf(self, x):
        x = _distribution.as_points(x, self.low.dtype)
        y = (x - self.low) / self.scale
        y = _math.where(y.array < 0, 0.0, y)
        return _math.where(y.array > 1, 1.0, y)

    def icdf(self, x):
        x = _distribution.as_points(x, self.low.dtype)
        return self.low + self.scale * x

    def sample_n(self, n):
        low = self.low
        u = _distribution.noise(low.xp, "uniform", (n, *low.shape), low.dtype)
        return low + self.scale * u


@_distribution.register_kl(Uniform, Uniform)
def _kl_uniform_uniform(dist1, dist2):
    kl = _math.log(dist2.scale) - _math.log(dist1.scale)
    outside = (dist1.low.array < dist2.low.array) | (
        dist1.high.array > dist2.high.array
    )
    return _math.where(outside, numpy.inf, kl)
