"""Elementwise ``exp(x) - 1``, accurate for small ``x``."""

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class Expm1(function_node.FunctionNode):
    @property
    def label(self):
        return "expm1"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        return (backend.get_array_module(x).expm1(x),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        # d expm1(x) / dx = exp(x) = y + 1.
        return (grad_outputs[0] * (y + 1.0),)


def expm1(x):
    """Elementwise exponential minus one function.

    .. math:: y_i = \\exp(x_i) - 1

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Expm1().apply((x,))[0]
