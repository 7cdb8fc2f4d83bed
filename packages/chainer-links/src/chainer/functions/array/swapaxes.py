from chainer import function_node
from chainer.utils import type_check


class Swapaxes(function_node.FunctionNode):
    """Interchange of two axes."""

    def __init__(self, axis1, axis2):
        self.axis1 = axis1
        self.axis2 = axis2

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        for axis in (self.axis1, self.axis2):
            if axis >= 0:
                type_check.expect(x_type.ndim > axis)
            else:
                type_check.expect(x_type.ndim >= -axis)

    def forward(self, inputs):
        (x,) = inputs
        return (x.swapaxes(self.axis1, self.axis2),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return Swapaxes(self.axis1, self.axis2).apply((gy,))


def swapaxes(x, axis1, axis2):
    """Swaps two axes of ``x``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input array of any
            dimensionality.
        axis1 (int): First axis (negative values count from the end).
        axis2 (int): Second axis.

    Returns:
        ~chainer.Variable: ``x`` with ``axis1`` and ``axis2`` interchanged.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.ones((1, 2, 3), np.float32)
        >>> F.swapaxes(x, 0, 2).shape
        (3, 2, 1)
    """
    (y,) = Swapaxes(axis1, axis2).apply((x,))
    return y
