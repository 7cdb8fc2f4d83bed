"""Exponential and logarithms (exp, log, log2, log10)."""

import math

from chainer import backend
from chainer import function_node
from chainer.primitive_ops import basic_math
from chainer.utils import type_check

# The natural logarithm is the core primitive behind ``Variable`` arithmetic.
Log = basic_math.Log

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _check_float_unary(in_types):
    type_check.argname(in_types, ("x",))
    type_check.expect(in_types[0].dtype.kind == "f")


class Exp(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "exp"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        return (backend.get_array_module(x).exp(x),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * y,)


class Log2(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "log2"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).log2(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (x * _LN2),)


class Log10(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "log10"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).log10(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (x * _LN10),)


def exp(x):
    """Elementwise exponential function.

    .. math:: y_i = \\exp x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Exp().apply((x,))[0]


def log(x):
    """Elementwise natural logarithm function.

    .. math:: y_i = \\ln x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with positive values.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Log().apply((x,))[0]


def log2(x):
    """Elementwise base-2 logarithm function.

    .. math:: y_i = \\log_2 x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with positive values.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Log2().apply((x,))[0]


def log10(x):
    """Elementwise base-10 logarithm function.

    .. math:: y_i = \\log_{10} x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with positive values.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Log10().apply((x,))[0]
