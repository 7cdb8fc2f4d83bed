import functools

from chainer import variable
from chainer.distributions import _distribution
from chainer.distributions import _math


class Dirichlet(_distribution.Distribution):
    """Dirichlet distribution over the probability simplex.

    .. math::
        p(x; \\alpha) = \\frac{\\Gamma(\\alpha_0)}{\\prod_k \\Gamma(\\alpha_k)}
            \\prod_k x_k^{\\alpha_k - 1}, \\quad \\alpha_0 = \\sum_k \\alpha_k

    Log-density and entropy use SciPy's special functions
    (``pip install chainer-links[special]``).

    Args:
        alpha (~chainer.Variable or :ref:`ndarray`): Concentrations
            :math:`\\alpha_k > 0` of shape ``batch_shape + (K,)``.
    """

    def __init__(self, alpha):
        (self.alpha,) = _distribution.as_params("Dirichlet", alpha=alpha)
        if self.alpha.ndim < 1:
            raise ValueError(
                "Dirichlet: alpha needs a last axis of components, "
                f"got shape {self.alpha.shape}"
            )

    @property
    def batch_shape(self):
        return self.alpha.shape[:-1]

    @property
    def event_shape(self):
        return self.alpha.shape[-1:]

    @property
    def params(self):
        return {"alpha": self.alpha}

    @property
    def support(self):
        return "[0, 1]"

    @functools.cached_property
    def alpha0(self):
        """~chainer.Variable: The total concentration, of shape ``batch_shape``."""
        return _math.sum(self.alpha, axis=-1)

    @functools.cached_property
    def _alpha0_column(self):
        return _math.reshape(self.alpha0, (*self.batch_shape, 1))

    @functools.cached_property
    def _lbeta(self):
        return _math.sum(_math.lgamma(self.alpha), axis=-1) - _math.lgamma(self.alpha0)

    @functools.cached_property
    def mean(self):
        return self.alpha / self._alpha0_column

    @functools.cached_property
    def variance(self):
        a0 = self._alpha0_column
        return self.alpha * (a0 - self.alpha) / (a0 * a0 * (a0 + 1.0))

    @functools.cached_property
    def covariance(self):
        alpha = self.alpha
        k = alpha.shape[-1]
        a0 = _math.reshape(self._alpha0_column, (*self.batch_shape, 1, 1))
        column = _math.reshape(alpha, (*alpha.shape, 1))
        row = _math.reshape(alpha, (*self.batch_shape, 1, k))
        eye = alpha.xp.eye(k, dtype=alpha.dtype)
        return (column * eye * a0 - column * row) / (a0 * a0 * (a0 + 1.0))

    @functools.cached_property
    def entropy(self):
        alpha, a0 = self.alpha, self.alpha0
        k = alpha.shape[-1]
        return (
            self._lbeta
            + (a0 - float(k)) * _math.digamma(a0)
            - _math.sum((alpha - 1.0) * _math.digamma(alpha), axis=-1)
        )

    def log_prob(self, x):
        x = _distribution.as_points(x, self.alpha.dtype)
        return _math.sum((self.alpha - 1.0) * _math.log(x), axis=-1) - self._lbeta

    def sample_n(self, n):
        alpha = self.alpha
        g = _distribution.noise(
            alpha.xp, "gamma", (n, *alpha.shape), alpha.dtype, alpha.array
        )
        return variable.Variable(g / g.sum(axis=-1, keepdims=True))


@_distribution.register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(dist1, dist2):
    a1, a2 = dist1.alpha, dist2.alpha
    return (
        dist2._lbeta
        - dist1._lbeta
        + _math.sum(
            (a1 - a2) * (_math.digamma(a1) - _math.digamma(dist1._alpha0_column)),
            axis=-1,
        )
    )
