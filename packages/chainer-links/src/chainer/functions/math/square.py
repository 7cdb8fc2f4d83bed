"""Elementwise square."""

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class Square(function_node.FunctionNode):
    @property
    def label(self):
        return "square"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).square(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * (x * 2.0),)


def square(x):
    """Elementwise square function.

    .. math:: y_i = x_i ^ 2

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Square().apply((x,))[0]
