"""Primitive differentiable operations (``chainer.primitive_ops``).

This module is an extension of this project; Chainer 7 has no such module.
It holds the few differentiable operations that chainer-core itself needs:
the shape and indexing ops (:mod:`~chainer.primitive_ops.array`), the
arithmetic behind :class:`~chainer.Variable`'s operators
(:mod:`~chainer.primitive_ops.basic_math`) and the reductions
(:mod:`~chainer.primitive_ops.reduction`). Importing :mod:`chainer` attaches
the operators (``+``, ``-``, ``*``, ``/``, ``//``, ``**``, ``@``) to
:class:`~chainer.Variable`.

The ``chainer.functions`` catalogue (the chainer-links distribution) builds
on these ops and re-exports them under Chainer's names (``F.reshape``,
``F.sum``, ``F.matmul``...), and other distributions may use them and their
:class:`~chainer.FunctionNode` classes directly: the names of this module
and its three submodules that do not start with ``_`` are a public contract
between the distributions. The functions take
:class:`~chainer.Variable` or :ref:`ndarray` inputs and return a
:class:`~chainer.Variable`, as ``chainer.functions`` does.
"""

from chainer.primitive_ops import array
from chainer.primitive_ops import basic_math
from chainer.primitive_ops import reduction
from chainer.primitive_ops.array import broadcast_to
from chainer.primitive_ops.array import cast
from chainer.primitive_ops.array import get_item
from chainer.primitive_ops.array import reshape
from chainer.primitive_ops.array import sum_to
from chainer.primitive_ops.array import transpose
from chainer.primitive_ops.basic_math import absolute
from chainer.primitive_ops.basic_math import add
from chainer.primitive_ops.basic_math import install_variable_arithmetics
from chainer.primitive_ops.basic_math import log
from chainer.primitive_ops.basic_math import matmul
from chainer.primitive_ops.basic_math import mul_constant
from chainer.primitive_ops.basic_math import neg
from chainer.primitive_ops.reduction import average
from chainer.primitive_ops.reduction import sum

__all__ = [
    "absolute",
    "add",
    "array",
    "average",
    "basic_math",
    "broadcast_to",
    "cast",
    "get_item",
    "install_variable_arithmetics",
    "log",
    "matmul",
    "mul_constant",
    "neg",
    "reduction",
    "reshape",
    "sum",
    "sum_to",
    "transpose",
]

install_variable_arithmetics()
