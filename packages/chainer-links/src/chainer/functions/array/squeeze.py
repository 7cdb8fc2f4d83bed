import numbers

from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class Squeeze(function_node.FunctionNode):
    """Removal of axes of length one."""

    def __init__(self, axis=None):
        self.axis = axis

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        if self.axis is None:
            return
        (x_type,) = in_types
        for axis in self.axis:
            if axis >= 0:
                type_check.expect(x_type.ndim > axis)
            else:
                type_check.expect(x_type.ndim >= -axis)
            type_check.expect(x_type.shape[axis] == 1)

    def forward(self, inputs):
        (x,) = inputs
        return (x.squeeze(self.axis),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (primitive_ops.reshape(gy, self.inputs[0].shape),)


def squeeze(x, axis=None):
    """Removes axes of length one from the shape of ``x``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input array.
        axis (None, int or tuple of ints): Axes to remove; each must have
            length one. ``None`` removes every axis of length one.

    Returns:
        ~chainer.Variable: ``x`` without the selected length-one axes.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.zeros((1, 2, 1, 3), np.float32)
        >>> F.squeeze(x).shape
        (2, 3)
        >>> F.squeeze(x, axis=2).shape
        (1, 2, 3)
    """
    if axis is not None:
        if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
            axis = (int(axis),)
        elif isinstance(axis, tuple) and all(
            isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in axis
        ):
            axis = tuple(int(a) for a in axis)
        else:
            raise TypeError(f"axis must be None, int or tuple of ints, not {axis!r}")
    (y,) = Squeeze(axis).apply((x,))
    return y
