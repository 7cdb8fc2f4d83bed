from chainer import backend
from chainer import function_node
from chainer.functions.array import separate
from chainer.utils import type_check


class Stack(function_node.FunctionNode):
    """Concatenation of arrays of one shape along a new axis."""

    def __init__(self, axis):
        self.axis = axis

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        x0_type = in_types[0]
        if self.axis >= 0:
            type_check.expect(x0_type.ndim >= self.axis)
        else:
            type_check.expect(x0_type.ndim + 1 >= -self.axis)
        for x_type in in_types[1:]:
            type_check.expect(
                x0_type.dtype == x_type.dtype,
                x0_type.shape == x_type.shape,
            )

    def forward(self, inputs):
        xp = backend.get_array_module(inputs[0])
        return (xp.stack(inputs, axis=self.axis),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        gxs = separate.separate(gy, self.axis)
        return tuple(gxs[i] for i in indexes)


def stack(xs, axis=0):
    """Joins arrays of one shape along a new axis.

    Args:
        xs (list of ~chainer.Variable or :ref:`ndarray`): Arrays of the same
            shape and dtype.
        axis (int): Position of the new axis in the result, in
            ``[-x.ndim - 1, x.ndim]``.

    Returns:
        ~chainer.Variable: Array of ``x.ndim + 1`` dimensions whose length
        along ``axis`` is ``len(xs)``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x1 = np.zeros((2, 3), np.float32)
        >>> x2 = np.ones((2, 3), np.float32)
        >>> F.stack([x1, x2]).shape
        (2, 2, 3)
        >>> F.stack([x1, x2], axis=-1).shape
        (2, 3, 2)
    """
    (y,) = Stack(axis).apply(tuple(xs))
    return y
