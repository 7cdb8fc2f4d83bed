import functools

from chainer.distributions import _distribution
from chainer.distributions import _math


class Normal(_distribution.Distribution):
    """Normal (Gaussian) distribution.

    .. math::
        p(x; \\mu, \\sigma) = \\frac{1}{\\sqrt{2\\pi\\sigma^2}}
            \\exp\\left(-\\frac{(x - \\mu)^2}{2\\sigma^2}\\right)

    Samples are reparameterized (differentiable in ``loc`` and ``scale``).

    Args:
        loc (~chainer.Variable or :ref:`ndarray`): Mean :math:`\\mu`; its
            shape is the batch shape.
        scale (~chainer.Variable or :ref:`ndarray`): Standard deviation
            :math:`\\sigma > 0`, broadcastable with ``loc``.
        log_scale (~chainer.Variable or :ref:`ndarray`): Keyword only:
            :math:`\\log \\sigma`, given instead of ``scale``.

    Example:
        >>> import numpy
        >>> from chainer import distributions
        >>> d = distributions.Normal(numpy.zeros(2, numpy.float32),
        ...                          numpy.ones(2, numpy.float32))
        >>> d.log_prob(numpy.zeros(2, numpy.float32)).array
        array([-0.9189385, -0.9189385], dtype=float32)
    """

    def __init__(self, loc, scale=None, **kwargs):
        log_scale = kwargs.pop("log_scale", None)
        if kwargs:
            raise TypeError(f"Normal got unexpected keywords: {sorted(kwargs)}")
        if (scale is None) == (log_scale is None):
            raise ValueError(
                "Normal: either `scale` or `log_scale` (but not both) must be given"
            )
        if scale is not None:
            self.loc, self.scale = _distribution.as_params(
                "Normal", loc=loc, scale=scale
            )
        else:
            self.loc, self.log_scale = _distribution.as_params(
                "Normal", loc=loc, log_scale=log_scale
            )

    @functools.cached_property
    def scale(self):
        """~chainer.Variable: The standard deviation."""
        return _math.exp(self.log_scale)

    @functools.cached_property
    def log_scale(self):
        """~chainer.Variable: The log of the standard deviation."""
        return _math.log(self.scale)

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
        return self.scale**2

    @property
    def stddev(self):
        return self.scale

    @functools.cached_property
    def entropy(self):
        return self.log_scale + 0.5 * (_math.LOG_2PI + 1.0)

    def _z(self, x):
        return (_distribution.as_points(x, self.loc.dtype) - self.loc) / self.scale

    def log_prob(self, x):
        z = self._z(x)
        return -0.5 * _math.LOG_2PI - self.log_scale - 0.5 * z * z

    def cdf(self, x):
        return _math.ndtr(self._z(x))

    def log_cdf(self, x):
        return _math.log_ndtr(self._z(x))

    def survival_function(self, x):
        return _math.ndtr(-self._z(x))

    def log_survival_function(self, x):
        return _math.log_ndtr(-self._z(x))

    def icdf(self, x):
        x = _distribution.as_points(x, self.loc.dtype)
        return self.loc + self.scale * _math.ndtri(x)

    def sample_n(self, n):
        eps = _distribution.noise(
            self.xp, "standard_normal", (n, *self.loc.shape), self.loc.dtype
        )
        return self.loc + self.scale * eps


@_distribution.register_kl(Normal, Normal)
def _kl_normal_normal(dist1, dist2):
    diff = (dist1.loc - dist2.loc) / dist2.scale
    ratio = dist1.scale / dist2.scale
    return dist2.log_scale - dist1.log_scale + 0.5 * (ratio * ratio + diff * diff) - 0.5
