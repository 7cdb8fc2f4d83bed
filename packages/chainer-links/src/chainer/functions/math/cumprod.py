import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.array import concat
from chainer.functions.math import cumsum
from chainer.utils import type_check


def _flip(x, axis):
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, None, -1)
    return primitive_ops.get_item(x, tuple(index))


def _shift(x, axis, d):
    # out[i] = x[i - d] along ``axis`` (d = +1 or -1), zero where undefined.
    xp = backend.get_array_module(x.array)
    n = x.shape[axis]
    zero_shape = list(x.shape)
    zero_shape[axis] = 1
    zero = xp.zeros(zero_shape, x.dtype)
    index = [slice(None)] * x.ndim
    if d > 0:
        index[axis] = slice(0, n - 1)
        return concat.concat((zero, primitive_ops.get_item(x, tuple(index))), axis)
    index[axis] = slice(1, n)
    return concat.concat((primitive_ops.get_item(x, tuple(index)), zero), axis)


def _unit(shape, axis, position, dtype, xp):
    # One-hot along ``axis`` at ``position``, broadcastable to ``shape``.
    e = xp.zeros([shape[i] if i == axis else 1 for i in range(len(shape))], dtype)
    index = [0] * len(shape)
    index[axis] = position
    e[tuple(index)] = 1
    return e


class _Scan(function_node.FunctionNode):
    """Linear recurrence ``s[i] = b[i] + a[i] * s[i - 1]`` along an axis.

    With ``reverse`` the recurrence runs backwards (``s[i + 1]``). It is the
    exact gradient of a cumulative product whose input holds zeros, where
    dividing by the input is impossible; its Python loop makes it slower than
    the division, so it is used only then.
    """

    def __init__(self, axis, reverse):
        self.axis = axis
        self.reverse = reverse

    def forward(self, inputs):
        a, b = inputs
        xp = backend.get_array_module(a)
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        a = xp.moveaxis(a, self.axis, 0)
        b = xp.moveaxis(b, self.axis, 0)
        s = xp.empty(b.shape, b.dtype)
        n = len(b)
        order = range(n - 1, -1, -1) if self.reverse else range(n)
        prev = None
        for i in order:
            prev = b[i] if prev is None else b[i] + a[i] * prev
            s[i] = prev
        return (xp.moveaxis(s, 0, self.axis),)

    def backward(self, indexes, grad_outputs):
        (a,) = self.get_retained_inputs()
        (s,) = self.get_retained_outputs()
        (g,) = grad_outputs
        d = -1 if self.reverse else 1
        # The adjoint recurrence runs the other way: t[i] = g[i] + a[i+d] t[i+d].
        (t,) = _Scan(self.axis, not self.reverse).apply((_shift(a, self.axis, -d), g))
        ret = []
        if 0 in indexes:
            ret.append(t * _shift(s, self.axis, d))
        if 1 in indexes:
            ret.append(t)
        return tuple(ret)


class Cumprod(function_node.FunctionNode):
    """Cumulative product along an axis (of the flattened array for ``None``)."""

    def __init__(self, axis=None):
        if axis is None or isinstance(axis, (int, numpy.integer)):
            self.axis = None if axis is None else int(axis)
        else:
            raise TypeError("axis must be int or None")

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
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        if x.dtype == numpy.float16:
            y = xp.cumprod(x, axis=self.axis, dtype=numpy.float32)
            return (y.astype(numpy.float16),)
        return (xp.cumprod(x, axis=self.axis),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        shape = x.shape
        if self.axis is None:
            x = primitive_ops.reshape(x, (x.size,))
            axis = 0
        else:
            axis = self.axis % x.ndim
        if x.shape[axis] == 0:
            gx = x * 0
        elif not (x.array == 0).any():
            # gx[i] = sum_{j >= i} gy[j] y[j] / x[i]
            gx = _flip(cumsum.cumsum(_flip(gy * y, axis), axis), axis) / x
        else:
            # gx[i] = (prod_{k < i} x[k]) * r[i] with the recurrence
            # r[i] = gy[i] + x[i + 1] r[i + 1]: exact at zeros, to any order.
            xp = backend.get_array_module(x.array)
            before = _shift(y, axis, 1) + _unit(x.shape, axis, 0, x.dtype, xp)
            (r,) = _Scan(axis, True).apply((_shift(x, axis, -1), gy))
            gx = before * r
        if self.axis is None:
            gx = primitive_ops.reshape(gx, shape)
        return (gx,)


def cumprod(x, axis=None):
    """Cumulative product of array elements over a given axis.

    Zeros in ``x`` are handled exactly in the gradient.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        axis (int): Axis along which the cumulative product is taken. If it
            is ``None``, the product runs over the flattened input.

    Returns:
        ~chainer.Variable: Output variable of the shape of ``x`` (1-d of size
        ``x.size`` when ``axis`` is ``None``) and the dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
        >>> F.cumprod(x, axis=1).array
        array([[  1.,   2.,   6.],
               [  4.,  20., 120.]], dtype=float32)
    """
    (y,) = Cumprod(axis).apply((x,))
    return y
