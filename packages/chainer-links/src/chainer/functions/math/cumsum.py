import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _check_axis(axis):
    if axis is None:
        return None
    if isinstance(axis, (int, numpy.integer)):
        return int(axis)
    raise TypeError("axis must be int or None")


def _flip(x, axis):
    # Reversal along ``axis`` as a differentiable basic-indexing view.
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, None, -1)
    return primitive_ops.get_item(x, tuple(index))


class Cumsum(function_node.FunctionNode):
    """Cumulative sum along an axis (of the flattened array for ``None``)."""

    def __init__(self, axis=None):
        self.axis = _check_axis(axis)

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")
        if self.axis is not None:
            if self.axis >= 0:
                type_check.expect(self.axis < x_type.ndim)
            else:
                type_check.expect(-self.axis - 1 < x_type.ndim)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        if x.dtype == numpy.float16:
            # Long float16 running sums drift; accumulate in float32.
            y = xp.cumsum(x, axis=self.axis, dtype=numpy.float32)
            return (y.astype(numpy.float16),)
        return (xp.cumsum(x, axis=self.axis),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        shape = self.inputs[0].shape
        axis = 0 if self.axis is None else self.axis % len(shape)
        gx = _flip(cumsum(_flip(gy, axis), axis), axis)
        if self.axis is None:
            gx = primitive_ops.reshape(gx, shape)
        return (gx,)


def cumsum(x, axis=None):
    """Cumulative sum of array elements over a given axis.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        axis (int): Axis along which the cumulative sum is taken. If it is
            ``None``, the sum runs over the flattened input.

    Returns:
        ~chainer.Variable: Output variable of the shape of ``x`` (1-d of size
        ``x.size`` when ``axis`` is ``None``) and the dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
        >>> F.cumsum(x, axis=1).array
        array([[ 1.,  3.,  6.],
               [ 4.,  9., 15.]], dtype=float32)
    """
    (y,) = Cumsum(axis).apply((x,))
    return y
