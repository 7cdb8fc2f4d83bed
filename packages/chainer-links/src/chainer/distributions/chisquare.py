import functools
import math

import numpy

from chainer import variable
from chainer.distributions import _distribution
from chainer.distributions import _math


class Chisquare(_distribution.Distribution):
    """Chi-square distribution with ``k`` degrees of freedom.

    .. math::
        p(x; k) = \\frac{x^{k/2 - 1} e^{-x/2}}{2^{k/2} \\Gamma(k/2)}

    Log-density and entropy use SciPy's special functions
    (``pip install chainer-links[special]``).

    Args:
        k (~chainer.Variable or :ref:`ndarray`): Degrees of freedom
            :math:`k > 0`; its shape is the batch shape.
    """

    def __init__(self, k):
        (self.k,) = _distribution.as_params("Chisquare", k=k)

    @property
    def batch_shape(self):
        return self.k.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"k": self.k}

    @property
    def support(self):
        return "positive"

    @property
    def mean(self):
        return self.k

    @functools.cached_property
    def variance(self):
        return self.k * 2.0

    @functools.cached_property
    def entropy(self):
        half_k = self.k * 0.5
        return (
            half_k
            + math.log(2.0)
            + _math.lgamma(half_k)
            + (1.0 - half_k) * _math.digamma(half_k)
        )

    def log_prob(self, x):
        x = _distribution.as_points(x, self.k.dtype)
        inside = x.array > 0
        x = _math.where(inside, x, 1.0)
        half_k = self.k * 0.5
        logp = (
            (half_k - 1.0) * _math.log(x)
            - x * 0.5
            - _math.lgamma(half_k)
            - half_k * math.log(2.0)
        )
        return _math.where(inside, logp, -numpy.inf)

    def sample_n(self, n):
        k = self.k
        eps = _distribution.noise(k.xp, "chisquare", (n, *k.shape), k.dtype, k.array)
        return variable.Variable(eps)
