import functools

from chainer.distributions import _distribution
from chainer.distributions import _math


class MultivariateNormal(_distribution.Distribution):
    """Multivariate normal distribution parameterized by a Cholesky factor.

    .. math::
        p(x; \\mu, L) = \\frac{1}{\\sqrt{(2\\pi)^d |LL^\\top|}}
            \\exp\\left(-\\frac{1}{2} (x - \\mu)^\\top (LL^\\top)^{-1}
            (x - \\mu)\\right)

    Samples are reparameterized.

    Args:
        loc (~chainer.Variable or :ref:`ndarray`): Mean :math:`\\mu` of
            shape ``batch_shape + (d,)``.
        scale_tril (~chainer.Variable or :ref:`ndarray`): Keyword only
            (required): lower-triangular :math:`L` with a positive diagonal,
            of shape ``batch_shape + (d, d)``; the covariance is
            :math:`LL^\\top`. Entries above the diagonal are ignored.
    """

    def __init__(self, loc, **kwargs):
        scale_tril = kwargs.pop("scale_tril", None)
        if kwargs:
            raise TypeError(
                f"MultivariateNormal got unexpected keyword arguments: {sorted(kwargs)}"
            )
        if scale_tril is None:
            raise ValueError("MultivariateNormal: `scale_tril` must be given")
        self.loc, self.scale_tril = _distribution.as_params(
            "MultivariateNormal", broadcast=False, loc=loc, scale_tril=scale_tril
        )
        shape = self.loc.shape
        if len(shape) < 1 or self.scale_tril.shape != (*shape, shape[-1]):
            raise ValueError(
                "MultivariateNormal: loc must have shape batch_shape + (d,) and "
                "scale_tril batch_shape + (d, d); got "
                f"{shape} and {self.scale_tril.shape}"
            )
        self.d = shape[-1]

    @property
    def batch_shape(self):
        return self.loc.shape[:-1]

    @property
    def event_shape(self):
        return self.loc.shape[-1:]

    @property
    def params(self):
        return {"loc": self.loc, "scale_tril": self.scale_tril}

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
    def _tril(self):
        # Only the lower triangle parameterizes the distribution.
        st = self.scale_tril
        mask = st.xp.tril(st.xp.ones((self.d, self.d), dtype=bool))
        return _math.where(mask, st, 0.0)

    @functools.cached_property
    def _logdet(self):
        # log |L| = log sqrt|LL^T|.
        xp = self.scale_tril.xp
        i = xp.arange(self.d)
        diag = _math.get_item(self.scale_tril, (Ellipsis, i, i))
        return _math.sum(_math.log(_math.absolute(diag)), axis=-1)

    @functools.cached_property
    def _tril_inv(self):
        return _math.triangular_inv(self.scale_tril)

    @functools.cached_property
    def covariance(self):
        return _math.matmul(self._tril, _math.swap_last(self._tril))

    @functools.cached_property
    def variance(self):
        return _math.sum(self._tril * self._tril, axis=-1)

    @functools.cached_property
    def entropy(self):
        return self._logdet + 0.5 * self.d * (1.0 + _math.LOG_2PI)

    def log_prob(self, x):
        diff = _distribution.as_points(x, self.loc.dtype) - self.loc
        z = _mahalanobis_vector(self._tril_inv, diff)
        return (
            -0.5 * self.d * _math.LOG_2PI
            - self._logdet
            - 0.5 * _math.sum(z * z, axis=-1)
        )

    def sample_n(self, n):
        eps = _distribution.noise(
            self.loc.xp, "standard_normal", (n, *self.loc.shape), self.loc.dtype
        )
        return self.loc + _mahalanobis_vector(self._tril, eps)


def _mahalanobis_vector(m, v):
    # (..., d, d) times (..., d) as matrix-vector products, broadcasting the
    # batch dimensions of v's sample axes.
    v = _math.reshape(v, (*v.shape[:-1], 1, v.shape[-1]))
    return _math.sum(m * v, axis=-1)


@_distribution.register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariate_normal_multivariate_normal(dist1, dist2):
    inv2 = dist2._tril_inv
    m = _math.matmul(inv2, dist1._tril)
    trace = _math.sum(_math.sum(m * m, axis=-1), axis=-1)
    z = _mahalanobis_vector(inv2, dist2.loc - dist1.loc)
    return (
        dist2._logdet
        - dist1._logdet
        + 0.5 * (trace + _math.sum(z * z, axis=-1) - float(dist1.d))
    )
