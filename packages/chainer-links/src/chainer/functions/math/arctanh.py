"""Elementwise inverse hyperbolic tangent."""

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class Arctanh(function_node.FunctionNode):
    @property
    def label(self):
        return "arctanh"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).arctanh(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (1.0 - x * x),)


def arctanh(x):
    """Elementwise inverse hyperbolic tangent function.

    .. math:: y_i = \\tanh^{-1} x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with values in :math:`(-1, 1)`.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Arctanh().apply((x,))[0]
