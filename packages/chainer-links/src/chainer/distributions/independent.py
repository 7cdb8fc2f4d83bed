import numbers

from chainer.distributions import _distribution
from chainer.distributions import _math


class Independent(_distribution.Distribution):
    """Reinterprets trailing batch dimensions of a distribution as event ones.

    With ``n = reinterpreted_batch_ndims``, the last ``n`` batch dimensions of
    ``distribution`` join its event: log-densities and entropies are summed
    over them, so a batch of univariate distributions becomes a
    multivariate distribution with independent components.

    Args:
        distribution (~chainer.Distribution): The base distribution.
        reinterpreted_batch_ndims (int): Number of trailing batch dimensions
            to reinterpret, between 0 and ``len(distribution.batch_shape)``;
            by default all but the first one (``max(0, ndim - 1)``).

    Example:
        >>> import numpy
        >>> from chainer import distributions
        >>> normal = distributions.Normal(numpy.zeros((4, 3), numpy.float32),
        ...                               numpy.ones((4, 3), numpy.float32))
        >>> d = distributions.Independent(normal)
        >>> d.batch_shape, d.event_shape
        ((4,), (3,))
    """

    def __init__(self, distribution, reinterpreted_batch_ndims=None):
        ndim = len(distribution.batch_shape)
        if reinterpreted_batch_ndims is None:
            reinterpreted_batch_ndims = max(0, ndim - 1)
        elif not isinstance(reinterpreted_batch_ndims, numbers.Integral) or not (
            0 <= reinterpreted_batch_ndims <= ndim
        ):
            raise ValueError(
                "Independent: reinterpreted_batch_ndims must be an int between 0 "
                f"and len(distribution.batch_shape) = {ndim}, "
                f"got {reinterpreted_batch_ndims!r}"
            )
        self._distribution = distribution
        self._n = int(reinterpreted_batch_ndims)

    @property
    def distribution(self):
        """~chainer.Distribution: The base distribution."""
        return self._distribution

    @property
    def reinterpreted_batch_ndims(self):
        """int: Number of batch dimensions reinterpreted as event ones."""
        return self._n

    def _reduce(self, y):
        if self._n == 0:
            return y
        return _math.sum(y, axis=tuple(range(y.ndim - self._n, y.ndim)))

    @property
    def batch_shape(self):
        shape = tuple(self._distribution.batch_shape)
        return shape[: len(shape) - self._n]

    @property
    def event_shape(self):
        shape = tuple(self._distribution.batch_shape)
        return shape[len(shape) - self._n :] + tuple(self._distribution.event_shape)

    @property
    def params(self):
        return self._distribution.params

    @property
    def support(self):
        return self._distribution.support

    @property
    def mean(self):
        return self._distribution.mean

    @property
    def mode(self):
        return self._distribution.mode

    @property
    def variance(self):
        return self._distribution.variance

    @property
    def stddev(self):
        return self._distribution.stddev

    @property
    def covariance(self):
        base = self._distribution
        batch_shape = self.batch_shape
        m = 1
        for s in tuple(base.batch_shape)[len(batch_shape) :]:
            m *= s
        e = 1
        for s in base.event_shape:
            e *= s
        blocks = base.covariance if e > 1 else base.variance
        blocks = _math.reshape(blocks, (*batch_shape, m, e, 1, e))
        # Block-diagonal: component i only covaries with itself.
        eye = blocks.xp.eye(m, dtype=blocks.dtype).reshape(m, 1, m, 1)
        return _math.reshape(blocks * eye, (*batch_shape, m * e, m * e))

    @property
    def entropy(self):
        return self._reduce(self._distribution.entropy)

    def log_prob(self, x):
        return self._reduce(self._distribution.log_prob(x))

    def cdf(self, x):
        return _math.exp(self.log_cdf(x))

    def log_cdf(self, x):
        return self._reduce(self._distribution.log_cdf(x))

    def survival_function(self, x):
        return _math.exp(self.log_survival_function(x))

    def log_survival_function(self, x):
        return self._reduce(self._distribution.log_survival_function(x))

    def sample_n(self, n):
        return self._distribution.sample_n(n)


@_distribution.register_kl(Independent, Independent)
def _kl_independent_independent(dist1, dist2):
    if dist1.reinterpreted_batch_ndims != dist2.reinterpreted_batch_ndims:
        raise ValueError(
            "kl_divergence of Independent distributions needs equal "
            "reinterpreted_batch_ndims, got "
            f"{dist1.reinterpreted_batch_ndims} and {dist2.reinterpreted_batch_ndims}"
        )
    kl = _distribution.kl_divergence(dist1.distribution, dist2.distribution)
    return dist1._reduce(kl)
