"""The example plugin's function, ``example_square``, and its NumPy kernel."""

from __future__ import annotations

from chainer import backend
from chainer import function_node
from chainer.utils import type_check

# How many times the kernel override ran (tests read it).
kernel_calls = 0


class ExampleSquare(function_node.FunctionNode):
    """Elementwise square."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        return (xp.square(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        return (2.0 * x * gy,)


def square_kernel(node, inputs):
    """Kernel override of :class:`ExampleSquare` for NumPy arrays."""
    global kernel_calls
    kernel_calls += 1
    (x,) = inputs
    node.retain_inputs((0,))
    return (x * x,)


def example_square(x):
    """Elementwise square, :math:`y = x^2`.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    (y,) = ExampleSquare().apply((x,))
    return y
