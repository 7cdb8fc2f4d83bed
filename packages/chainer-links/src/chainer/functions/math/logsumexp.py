import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.math import exponential
from chainer.utils import type_check

_INT_TYPES = (int, numpy.integer)


class LogSumExp(function_node.FunctionNode):
    """Logarithm of the sum of exponentials over axes."""

    def __init__(self, axis=None):
        if axis is None:
            self.axis = None
        elif isinstance(axis, _INT_TYPES):
            self.axis = (int(axis),)
        elif isinstance(axis, tuple) and all(isinstance(a, _INT_TYPES) for a in axis):
            if len(set(axis)) != len(axis):
                raise ValueError(f"duplicate value in axis: {axis}")
            self.axis = tuple(int(a) for a in axis)
        else:
            raise TypeError("None, int or tuple of int are required")

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")
        if self.axis is not None:
            for axis in self.axis:
                if axis >= 0:
                    type_check.expect(axis < x_type.ndim)
                else:
                    type_check.expect(-axis - 1 < x_type.ndim)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        xc = x.astype(numpy.float32) if x.dtype == numpy.float16 else x
        m = xc.max(axis=self.axis, keepdims=True)
        # Shifting by the maximum keeps exp from overflowing; an infinite
        # maximum (e.g. a slice of -inf) is not shifted to avoid inf - inf.
        m = xp.where(xp.isfinite(m), m, 0)
        s = xp.sum(xp.exp(xc - m), axis=self.axis, keepdims=True)
        y = xp.log(s) + m
        y = y.reshape(_reduced_shape(x.shape, self.axis))
        return (y.astype(x.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        kept = _kept_shape(x.shape, self.axis)
        y = primitive_ops.broadcast_to(primitive_ops.reshape(y, kept), x.shape)
        gy = primitive_ops.broadcast_to(primitive_ops.reshape(gy, kept), x.shape)
        return (gy * exponential.exp(x - y),)


def _kept_shape(shape, axis):
    ndim = len(shape)
    if axis is None:
        return (1,) * ndim
    axes = {a % ndim for a in axis}
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _reduced_shape(shape, axis):
    if axis is None:
        return ()
    axes = {a % len(shape) for a in axis}
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def logsumexp(x, axis=None):
    """Log-sum-exp of array elements over a given axis.

    .. math:: y_i = \\log\\left(\\sum_j \\exp(x_{ij})\\right)

    Computed stably by shifting with the maximum.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        axis (None, int, or tuple of int): Axis over which the sum is taken.
            The default (``None``) reduces all the dimensions.

    Returns:
        ~chainer.Variable: Output variable of the reduced shape and the dtype
        of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.log(np.array([[1, 3], [2, 2]], np.float32))
        >>> np.exp(F.logsumexp(x, axis=1).array)
        array([4., 4.], dtype=float32)
    """
    (y,) = LogSumExp(axis).apply((x,))
    return y
