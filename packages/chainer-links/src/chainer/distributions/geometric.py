import functools

from chainer import variable
from chainer.distributions import _distribution
from chainer.distributions import _math


class Geometric(_distribution.Distribution):
    """Geometric distribution: the number of trials up to the first success.

    .. math:: P(x; p) = p (1 - p)^{x - 1}, \\quad x = 1, 2, \\ldots

    Args:
        p (~chainer.Variable or :ref:`ndarray`): Success probability in
            ``(0, 1]``; its shape is the batch shape.
    """

    def __init__(self, p):
        (self.p,) = _distribution.as_params("Geometric", p=p)

    @property
    def batch_shape(self):
        return self.p.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"p": self.p}

    @property
    def support(self):
        return "positive integer"

    @functools.cached_property
    def mean(self):
        return 1.0 / self.p

    @property
    def mode(self):
        return variable.Variable(_distribution.full(self.p, 1.0))

    @functools.cached_property
    def variance(self):
        return (1.0 - self.p) / (self.p * self.p)

    @functools.cached_property
    def entropy(self):
        p = self.p
        return -(_math.xlogx(1.0 - p) + _math.xlogx(p)) / p

    def log_prob(self, x):
        x = _distribution.as_points(x, self.p.dtype)
        return (x - 1.0) * _math.log1p(-self.p) + _math.log(self.p)

    def sample_n(self, n):
        p = self.p
        eps = _distribution.noise(p.xp, "geometric", (n, *p.shape), p.dtype, p.array)
        return variable.Variable(eps)


@_distribution.register_kl(Geometric, Geometric)
def _kl_geometric_geometric(dist1, dist2):
    p1, p2 = dist1.p, dist2.p
    return (1.0 / p1 - 1.0) * (_math.log1p(-p1) - _math.log1p(-p2)) + (
        _math.log(p1) - _math.log(p2)
    )
