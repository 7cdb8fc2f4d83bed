import functools

import numpy

from chainer import variable
from chainer.distributions import _distribution
from chainer.distributions import _math


class Bernoulli(_distribution.Distribution):
    """Bernoulli distribution over ``{0, 1}``.

    .. math:: P(x = 1; p) = p, \\quad P(x = 0; p) = 1 - p

    Exactly one of ``p`` and ``logit`` is given.

    Args:
        p (~chainer.Variable or :ref:`ndarray`): Probability of 1, in
            ``[0, 1]``; its shape is the batch shape.
        logit (~chainer.Variable or :ref:`ndarray`): :math:`\\log p - \\log(1 - p)`,
            given instead of ``p``.
        binary_check (bool): If ``True``, :meth:`log_prob` and :meth:`prob`
            give probability 0 to points other than 0 and 1. Otherwise
            ``x * log(p) + (1 - x) * log(1 - p)`` is evaluated as is (a relaxed
            density for ``x`` in ``[0, 1]``).
    """

    def __init__(self, p=None, logit=None, binary_check=False):
        if (p is None) == (logit is None):
            raise ValueError(
                "Bernoulli: either `p` or `logit` (but not both) must be given"
            )
        if p is not None:
            (self.p,) = _distribution.as_params("Bernoulli", p=p)
            self._shape = self.p.shape
            self._from_logit = False
        else:
            (self.logit,) = _distribution.as_params("Bernoulli", logit=logit)
            self._shape = self.logit.shape
            self._from_logit = True
        self.binary_check = binary_check

    @functools.cached_property
    def p(self):
        """~chainer.Variable: Probability of 1."""
        return _math.sigmoid(self.logit)

    @functools.cached_property
    def logit(self):
        """~chainer.Variable: Log-odds of 1."""
        return _math.log(self.p) - _math.log1p(-self.p)

    @property
    def batch_shape(self):
        return self._shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"logit": self.logit}

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
    def entropy(self):
        return -(_math.xlogx(self.p) + _math.xlogx(1.0 - self.p))

    def log_prob(self, x):
        given = self.logit if self._from_logit else self.p
        x = _distribution.as_points(x, given.dtype)
        if not self._from_logit:
            y = _math.xlogy(x, self.p) + _math.xlogy(1.0 - x, 1.0 - self.p)
        else:
            y = self._log_prob_from_logit(x)
        if self.binary_check:
            y = _math.where(_non_binary(x), -numpy.inf, y)
        return y

    def _log_prob_from_logit(self, x):
        logit = self.logit
        xp = logit.xp
        infinite = xp.isinf(logit.array)
        if not infinite.any():
            return x * logit - _math.softplus(logit)
        # p is exactly 0 or 1 where the logit is infinite: the log-probability
        # is log(x) or log(1 - x) there, constant in the logit.
        logit = _math.where(infinite, 0.0, logit)
        y = x * logit - _math.softplus(logit)
        with numpy.errstate(divide="ignore"):
            lp = xp.where(self.logit.array > 0, xp.log(x.array), xp.log1p(-x.array))
        return _math.where(infinite, lp.astype(y.dtype, copy=False), y)

    def prob(self, x):
        p = self.p
        x = _distribution.as_points(x, p.dtype)
        y = x * p + (1.0 - x) * (1.0 - p)
        if self.binary_check:
            y = _math.where(_non_binary(x), 0.0, y)
        return y

    def sample_n(self, n):
        p = self.p
        xp = p.xp
        u = xp.random.uniform(size=(n, *p.shape))
        return variable.Variable((u < p.array).astype(p.dtype))


def _bernoulli_log_prob(logit, x, binary_check=False):
    """Log-probability of ``x`` under a Bernoulli of log-odds ``logit``.

    Differentiable in ``logit`` (twice), also where it is infinite; see
    :meth:`Bernoulli.log_prob`.
    """
    return Bernoulli(logit=logit, binary_check=binary_check).log_prob(x)


def _non_binary(x):
    return (x.array != 0) & (x.array != 1)


@_distribution.register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(dist1, dist2):
    return (
        (dist1.logit - dist2.logit) * (dist1.p - 1.0)
        - _math.softplus(-dist1.logit)
        + _math.softplus(-dist2.logit)
    )
