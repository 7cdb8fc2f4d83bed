"""(Weighted) averages: ``average`` is the core primitive; ``mean`` is its alias."""

from chainer.primitive_ops import average

__all__ = ["average", "mean"]

# Chainer 7 exports the same function under both names.
mean = average
