"""Sum reductions: ``sum`` and ``sum_to`` are the core primitives."""

from chainer.primitive_ops import sum
from chainer.primitive_ops import sum_to
from chainer.primitive_ops.array import SumTo
from chainer.primitive_ops.reduction import Sum

__all__ = ["Sum", "SumTo", "sum", "sum_to"]
