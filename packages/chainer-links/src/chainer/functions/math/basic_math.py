"""Basic arithmetic (``absolute``, ``add``) shared with Variable's operators.

The nodes are core primitives: ``Variable``'s operators (``+``, ``-``, ``*``,
``/``, ``**``, ``abs``...) use the same classes, re-exported here under
Chainer's module path.
"""

from chainer import primitive_ops
from chainer.primitive_ops.basic_math import Absolute
from chainer.primitive_ops.basic_math import Add
from chainer.primitive_ops.basic_math import AddConstant
from chainer.primitive_ops.basic_math import Div
from chainer.primitive_ops.basic_math import DivFromConstant
from chainer.primitive_ops.basic_math import Mul
from chainer.primitive_ops.basic_math import MulConstant
from chainer.primitive_ops.basic_math import Neg
from chainer.primitive_ops.basic_math import PowConstVar
from chainer.primitive_ops.basic_math import PowVarConst
from chainer.primitive_ops.basic_math import PowVarVar
from chainer.primitive_ops.basic_math import Sub
from chainer.primitive_ops.basic_math import SubFromConstant
from chainer.primitive_ops.basic_math import (  # noqa: F401 (Chainer 7's name)
    convert_value_to_string as _convert_value_to_string,
)

__all__ = [
    "Absolute",
    "Add",
    "AddConstant",
    "Div",
    "DivFromConstant",
    "Mul",
    "MulConstant",
    "Neg",
    "PowConstVar",
    "PowVarConst",
    "PowVarVar",
    "Sub",
    "SubFromConstant",
    "absolute",
    "add",
]


def absolute(self):
    """Elementwise absolute value, ``abs(x)``.

    .. math:: y_i = |x_i|

    Args:
        self (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as the input.
    """
    return Absolute().apply((self,))[0]


def add(*xs):
    """Elementwise sum of the inputs, broadcasting like NumPy.

    .. math:: y_i = x_{1,i} + x_{2,i} + \\cdots

    Args:
        *xs (~chainer.Variable or :ref:`ndarray`): Operands of one dtype whose
            shapes broadcast together; a single operand is returned as a
            variable.

    Returns:
        ~chainer.Variable: The sum, of the broadcast shape.
    """
    return primitive_ops.add(*xs)
