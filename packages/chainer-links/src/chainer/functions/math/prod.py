import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.array import concat
from chainer.functions.math import cumprod
from chainer.utils import type_check

_INT_TYPES = (int, numpy.integer)


class Prod(function_node.FunctionNode):
    """Product over axes."""

    def __init__(self, axis=None, keepdims=False):
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
        self.keepdims = keepdims

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
        return (xp.prod(x, axis=self.axis, keepdims=self.keepdims),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        if not self.keepdims:
            kept = _kept_shape(x.shape, self.axis)
            gy = primitive_ops.reshape(gy, kept)
            y = primitive_ops.reshape(y, kept)
        gy = primitive_ops.broadcast_to(gy, x.shape)
        y = primitive_ops.broadcast_to(y, x.shape)
        if not (x.array == 0).any():
            return (gy * y / x,)
        return (gy * _product_of_others(x, self.axis),)


def _product_of_others(x, axis):
    # For every element, the product of the other elements of its slice,
    # from exclusive cumulative products from both ends (no division, so
    # exact at zeros and differentiable to any order).
    xp = backend.get_array_module(x.array)
    ndim = x.ndim
    axes = tuple(range(ndim)) if axis is None else tuple(a % ndim for a in axis)
    rest = tuple(i for i in range(ndim) if i not in axes)
    perm = axes + rest
    xt = primitive_ops.transpose(x, perm) if perm != tuple(range(ndim)) else x
    t_shape = xt.shape
    n = 1
    for a in axes:
        n *= x.shape[a]
    xt = primitive_ops.reshape(xt, (n, *t_shape[len(axes) :]))
    if n <= 1:
        return x * 0 + 1
    one = xp.ones((1, *xt.shape[1:]), x.dtype)
    left = cumprod.cumprod(xt[:-1], axis=0)
    right = cumprod.cumprod(xt[:0:-1], axis=0)[::-1]
    g = concat.concat((one, left), 0) * concat.concat((right, one), 0)
    g = primitive_ops.reshape(g, t_shape)
    if perm != tuple(range(ndim)):
        g = primitive_ops.transpose(g, tuple(numpy.argsort(perm)))
    return g


def _kept_shape(shape, axis):
    ndim = len(shape)
    if axis is None:
        return (1,) * ndim
    axes = {a % ndim for a in axis}
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def prod(x, axis=None, keepdims=False):
    """Product of array elements over a given axis.

    Zeros in ``x`` are handled exactly: the gradient of an element is the
    product of the other elements of its slice.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        axis (None, int, or tuple of int): Axis over which the product is
            taken. The default (``None``) reduces all the dimensions.
        keepdims (bool): If ``True``, the reduced axes are kept with length
            one.

    Returns:
        ~chainer.Variable: Output variable of the reduced shape and the dtype
        of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
        >>> F.prod(x, axis=1).array
        array([  6., 120.], dtype=float32)
    """
    (y,) = Prod(axis, keepdims).apply((x,))
    return y
