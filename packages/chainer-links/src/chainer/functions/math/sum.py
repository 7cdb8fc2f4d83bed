"""Sum reductions: ``sum`` and ``sum_to`` are the core primitives."""

from chainer._ops import sum
from chainer._ops import sum_to
from chainer._ops.array import SumTo
from chainer._ops.reduction import Sum

__all__ = ["Sum", "SumTo", "sum", "sum_to"]
