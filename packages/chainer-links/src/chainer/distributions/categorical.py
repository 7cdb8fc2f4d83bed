import functools

import numpy

from chainer import variable
from chainer.distributions import _distribution
from chainer.distributions import _math


class Categorical(_distribution.Distribution):
    """Categorical distribution over ``{0, 1, ..., K - 1}``.

    .. math:: P(x = k; p) = p_k

    Exactly one of ``p`` and ``logit`` is given.

    Args:
        p (~chainer.Variable or :ref:`ndarray`): Probabilities of shape
            ``batch_shape + (K,)``, summing to one over the last axis.
        logit (~chainer.Variable or :ref:`ndarray`): Keyword only:
            unnormalized log-probabilities of the same shape, given instead of
            ``p`` (``p = softmax(logit)``).
    """

    def __init__(self, p=None, **kwargs):
        logit = kwargs.pop("logit", None)
        if kwargs:
            raise TypeError(
                f"Categorical got unexpected keyword arguments: {sorted(kwargs)}"
            )
        if (p is None) == (logit is None):
            raise ValueError(
                "Categorical: either `p` or `logit` (but not both) must be given"
            )
        self._from_logit = logit is not None
        if self._from_logit:
            (self.logit,) = _distribution.as_params("Categorical", logit=logit)
            shape = self.logit.shape
        else:
            (self.p,) = _distribution.as_params("Categorical", p=p)
            shape = self.p.shape
        if len(shape) < 1:
            raise ValueError(
                "Categorical: the parameter needs a last axis of categories, "
                f"got shape {shape}"
            )
        self._shape = shape

    @functools.cached_property
    def p(self):
        """~chainer.Variable: Probabilities of the categories."""
        return _math.softmax(self.logit)

    @functools.cached_property
    def log_p(self):
        """~chainer.Variable: Log-probabilities of the categories."""
        if self._from_logit:
            return _math.log_softmax(self.logit)
        # -inf for impossible categories, without a warning or NaN gradients.
        positive = self.p.array > 0
        return _math.where(positive, _math.safe_log(self.p, positive), -numpy.inf)

    def _log_p_where(self, mask):
        # log p where mask holds, 0 elsewhere, with finite gradients at p = 0.
        if self._from_logit:
            return _math.where(mask, self.log_p, 0.0)
        return _math.safe_log(self.p, mask)

    @property
    def batch_shape(self):
        return self._shape[:-1]

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"p": self.p}

    @property
    def support(self):
        return "{0, 1, ..., K-1}"

    @functools.cached_property
    def entropy(self):
        p = self.p
        return -_math.sum(p * self._log_p_where(p.array > 0), axis=-1)

    def log_prob(self, x):
        x = _distribution.as_indices(x)
        xp = self.log_p.xp
        batch_shape = self.batch_shape
        nb = len(batch_shape)
        index = []
        for i, size in enumerate(batch_shape):
            shape = [1] * nb
            shape[i] = size
            index.append(xp.arange(size).reshape(shape))
        index.append(x.astype(numpy.intp, copy=False))
        return _math.get_item(self.log_p, tuple(index))

    def sample_n(self, n):
        return variable.Variable(_distribution.category_indices(self.p.array, n))


@_distribution.register_kl(Categorical, Categorical)
def _kl_categorical_categorical(dist1, dist2):
    p1 = dist1.p
    mask = p1.array > 0
    return _math.sum(
        p1 * (dist1._log_p_where(mask) - dist2._log_p_where(mask)), axis=-1
    )
