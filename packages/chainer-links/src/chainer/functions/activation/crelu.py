import numbers

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class CReLU(function_node.FunctionNode):
    """Concatenated rectified linear unit."""

    def __init__(self, axis=1):
        if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
            raise TypeError(f"axis must be an integer value, got {axis!r}")
        self.axis = int(axis)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        axis = type_check.make_variable(self.axis, "axis")
        type_check.expect(
            x_type.dtype.kind == "f",
            axis < x_type.ndim,
            -x_type.ndim <= axis,
        )

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        zero = x.dtype.type(0)
        return (xp.concatenate((xp.maximum(x, zero), xp.maximum(-x, zero)), self.axis),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        xp = backend.get_array_module(gy)
        x = x.array
        axis = self.axis % x.ndim
        # Mask both halves at once, then add them by summing over an axis of 2.
        one = x.dtype.type(1)
        mask = xp.concatenate(((x > 0) * one, (x < 0) * -one), axis)
        halves = (*x.shape[:axis], 2, *x.shape[axis:])
        return (primitive_ops.sum(primitive_ops.reshape(gy * mask, halves), axis=axis),)


def crelu(x, axis=1):
    """Concatenated Rectified Linear Unit function.

    This function is expressed as

    .. math:: f(x) = (\\max(0, x), \\max(0, -x)),

    where the two output values are concatenated along an axis.

    See: https://arxiv.org/abs/1603.05201

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.
        axis (int): Axis that the output values are concatenated along.

    Returns:
        ~chainer.Variable: Output variable of shape
        :math:`(s_1, s_2, ..., 2 s_{axis}, ..., s_N)`.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[-1, 0], [2, -3]], np.float32)
        >>> F.crelu(x, axis=1).array
        array([[0., 0., 1., 0.],
               [2., 0., 0., 3.]], dtype=float32)
    """
    (y,) = CReLU(axis).apply((x,))
    return y
