"""Elementwise ``log(1 + x)``, accurate for small ``x``."""

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class Log1p(function_node.FunctionNode):
    @property
    def label(self):
        return "log1p"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).log1p(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (x + 1.0),)


def log1p(x):
    """Elementwise natural logarithm plus one function.

    .. math:: y_i = \\ln(1 + x_i)

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with values greater than -1.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Log1p().apply((x,))[0]
