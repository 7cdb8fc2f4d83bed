import numpy

from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _rolled_axes(ndim, axis, start):
    # The permutation numpy.rollaxis applies.
    axis %= ndim
    if start < 0:
        start += ndim
    if axis < start:
        start -= 1
    axes = list(range(ndim))
    axes.remove(axis)
    axes.insert(start, axis)
    return tuple(axes)


class Rollaxis(function_node.FunctionNode):
    """Roll of one axis to a given position."""

    def __init__(self, axis, start):
        self.axis = axis
        self.start = start

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)
        # ``start`` may equal ndim: the axis then moves to the end.
        if self.start >= 0:
            type_check.expect(x_type.ndim >= self.start)
        else:
            type_check.expect(x_type.ndim >= -self.start)

    def forward(self, inputs):
        (x,) = inputs
        return (x.transpose(_rolled_axes(x.ndim, self.axis, self.start)),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        axes = _rolled_axes(gy.ndim, self.axis, self.start)
        return (primitive_ops.transpose(gy, tuple(numpy.argsort(axes).tolist())),)


def rollaxis(x, axis, start=0):
    """Rolls ``axis`` backwards until it lies before position ``start``.

    Same as :func:`numpy.rollaxis`.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input array.
        axis (int): The axis to roll.
        start (int): The position before which ``axis`` is placed; may be
            ``x.ndim`` to move the axis to the end.

    Returns:
        ~chainer.Variable: ``x`` with its axes reordered (same size).

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.zeros((2, 3, 4), np.float32)
        >>> F.rollaxis(x, 2).shape
        (4, 2, 3)
    """
    (y,) = Rollaxis(axis, start).apply((x,))
    return y
