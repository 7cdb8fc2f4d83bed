import functools

import numpy

from chainer import variable
from chainer.distributions import _distribution
from chainer.distributions import _math


class OneHotCategorical(_distribution.Distribution):
    """Categorical distribution over one-hot vectors of length ``K``.

    .. math:: P(x = e_k; p) = p_k

    Args:
        p (~chainer.Variable or :ref:`ndarray`): Probabilities of shape
            ``batch_shape + (K,)``, summing to one over the last axis.
    """

    def __init__(self, p):
        (self.p,) = _distribution.as_params("OneHotCategorical", p=p)
        if self.p.ndim < 1:
            raise ValueError(
                "OneHotCategorical: p needs a last axis of categories, "
                f"got shape {self.p.shape}"
            )

    @functools.cached_property
    def log_p(self):
        """~chainer.Variable: Log-probabilities of the categories."""
        # -inf for impossible categories, without a warning or NaN gradients.
        positive = self.p.array > 0
        return _math.where(positive, _math.safe_log(self.p, positive), -numpy.inf)

    @property
    def batch_shape(self):
        return self.p.shape[:-1]

    @property
    def event_shape(self):
        return self.p.shape[-1:]

    @property
    def params(self):
        return {"p": self.p}

    @property
    def support(self):
        return "{0, 1}"

    @property
    def mean(self):
        return self.p

    @functools.cached_property
    def variance(self):
        return self.p * (1.0 - self.p)

    @functools.cached_property
    def covariance(self):
        p = self.p
        k = p.shape[-1]
        column = _math.reshape(p, (*p.shape, 1))
        row = _math.reshape(p, (*p.shape[:-1], 1, k))
        return column * p.xp.eye(k, dtype=p.dtype) - column * row

    @functools.cached_property
    def entropy(self):
        p = self.p
        return -_math.sum(p * _math.safe_log(p, p.array > 0), axis=-1)

    def log_prob(self, x):
        p = self.p
        x = _distribution.as_points(x, p.dtype)
        if x.shape != p.shape:
            p = _math.broadcast_to(p, x.shape)
        # Zero entries of x select nothing, even where p is 0.
        return _math.sum(x * _math.safe_log(p, x.array != 0), axis=-1)

    def sample_n(self, n):
        p = self.p
        idx = _distribution.category_indices(p.array, n)
        return variable.Variable(p.xp.eye(p.shape[-1], dtype=p.dtype)[idx])


@_distribution.register_kl(OneHotCategorical, OneHotCategorical)
def _kl_one_hot_categorical_one_hot_categorical(dist1, dist2):
    p1 = dist1.p
    mask = p1.array > 0
    return _math.sum(
        p1 * (_math.safe_log(p1, mask) - _math.safe_log(dist2.p, mask)), axis=-1
    )
