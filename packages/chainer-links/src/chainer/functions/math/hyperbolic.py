"""Hyperbolic functions (sinh, cosh)."""

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


def _check_float_unary(in_types):
    type_check.argname(in_types, ("x",))
    type_check.expect(in_types[0].dtype.kind == "f")


class Sinh(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "sinh"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).sinh(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * cosh(x),)


class Cosh(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "cosh"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).cosh(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * sinh(x),)


def sinh(x):
    """Elementwise hyperbolic sine function.

    .. math:: y_i = \\sinh x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Sinh().apply((x,))[0]


def cosh(x):
    """Elementwise hyperbolic cosine function.

    .. math:: y_i = \\cosh x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Cosh().apply((x,))[0]
