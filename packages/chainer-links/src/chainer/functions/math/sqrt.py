"""Elementwise square root and reciprocal square root."""

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


def _check_float_unary(in_types):
    type_check.argname(in_types, ("x",))
    type_check.expect(in_types[0].dtype.kind == "f")


class Sqrt(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "sqrt"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        return (backend.get_array_module(x).sqrt(x),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] / (y * 2.0),)


class Rsqrt(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "rsqrt"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        xp = backend.get_array_module(x)
        return (xp.reciprocal(xp.sqrt(x)),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        # d x^(-1/2) / dx = -x^(-3/2) / 2 = -y^3 / 2.
        return (grad_outputs[0] * (y * y * y * -0.5),)


def sqrt(x):
    """Elementwise square root function.

    .. math:: y_i = \\sqrt{x_i}

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with non-negative values.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Sqrt().apply((x,))[0]


def rsqrt(x):
    """Elementwise reciprocal square root function.

    .. math:: y_i = {1 \\over \\sqrt{x_i}}

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with positive values.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Rsqrt().apply((x,))[0]
