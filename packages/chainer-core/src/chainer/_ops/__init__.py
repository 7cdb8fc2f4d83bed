"""Primitive differentiable operations that Variable's operators need.

The catalogue (``chainer.functions``, in chainer-links) re-exports them under
Chainer's names; core code uses them directly.
"""

from chainer._ops.array import broadcast_to
from chainer._ops.array import cast
from chainer._ops.array import get_item
from chainer._ops.array import reshape
from chainer._ops.array import sum_to
from chainer._ops.array import transpose
from chainer._ops.basic_math import absolute
from chainer._ops.basic_math import add
from chainer._ops.basic_math import install_variable_arithmetics
from chainer._ops.basic_math import log
from chainer._ops.basic_math import matmul
from chainer._ops.basic_math import mul_constant
from chainer._ops.basic_math import neg
from chainer._ops.reduction import average
from chainer._ops.reduction import sum

__all__ = [
    "absolute",
    "add",
    "average",
    "broadcast_to",
    "cast",
    "get_item",
    "install_variable_arithmetics",
    "log",
    "matmul",
    "mul_constant",
    "neg",
    "reshape",
    "sum",
    "sum_to",
    "transpose",
]

install_variable_arithmetics()
