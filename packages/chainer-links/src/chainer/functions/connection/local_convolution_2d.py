from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import conv
from chainer.utils import type_check

# Layouts: x (n, c, h, w); W (out_c, out_h, out_w, c, kh, kw); y (n, out_c,
# out_h, out_w). Every output position p = (i, j) has its own filter, so the
# work is a batch of P = out_h * out_w GEMMs over the im2col patches,
# arranged as (P, n, F) with F = c * kh * kw.


def _patches(x, ksize, stride, out_size):
    # (P, n, F) copy of the filter windows of x.
    n = x.shape[0]
    windows = conv.window_view(x, ksize, stride, out_size)
    xp = backend.get_array_module(x)
    cols = xp.ascontiguousarray(windows.transpose(2, 3, 0, 1, 4, 5))
    return cols.reshape(out_size[0] * out_size[1], n, -1)


def _filters(W):
    # (P, out_c, F) view of W.
    out_c, out_h, out_w = W.shape[:3]
    return W.reshape(out_c, out_h * out_w, -1).transpose(1, 0, 2)


def _by_position(gy):
    # (P, n, out_c) copy of an output-shaped array.
    n, out_c = gy.shape[:2]
    xp = backend.get_array_module(gy)
    return xp.ascontiguousarray(gy.reshape(n, out_c, -1).transpose(2, 0, 1))


def _local_conv(x, W, stride):
    n = x.shape[0]
    out_c, out_h, out_w, _, kh, kw = W.shape
    xp = backend.get_array_module(x)
    cols = _patches(x, (kh, kw), stride, (out_h, out_w))
    y = xp.matmul(cols, _filters(W).transpose(0, 2, 1))  # (P, n, out_c)
    return xp.ascontiguousarray(y.transpose(1, 2, 0)).reshape(n, out_c, out_h, out_w)


def _grad_x(gy, W, x_shape, stride):
    _, out_h, out_w, c, kh, kw = W.shape
    n = x_shape[0]
    sy, sx = stride
    xp = backend.get_array_module(gy)
    gcols = xp.matmul(_by_position(gy), _filters(W))  # (P, n, F)
    gcols = gcols.reshape(out_h, out_w, n, c, kh, kw).transpose(2, 3, 4, 5, 0, 1)
    gx = xp.zeros(x_shape, gy.dtype)
    for i in range(kh):
        rows = slice(i, i + sy * (out_h - 1) + 1, sy)
        for j in range(kw):
            cols = slice(j, j + sx * (out_w - 1) + 1, sx)
            gx[:, :, rows, cols] += gcols[:, :, i, j]
    return gx


def _grad_w(x, gy, w_shape, stride):
    _, out_h, out_w, _, kh, kw = w_shape
    xp = backend.get_array_module(x)
    cols = _patches(x, (kh, kw), stride, (out_h, out_w))
    gW = xp.matmul(_by_position(gy).transpose(0, 2, 1), cols)  # (P, out_c, F)
    return xp.ascontiguousarray(gW.transpose(1, 0, 2)).reshape(w_shape)


class LocalConvolution2DFunction(function_node.FunctionNode):
    """Convolution with a separate filter at every output position."""

    def __init__(self, stride=1):
        self.stride = conv.as_tuple(stride, 2, "stride")

    def check_type_forward(self, in_types):
        n_in = in_types.size()
        type_check.expect(n_in >= 2, n_in <= 3)
        x_type, w_type = in_types[:2]
        sy, sx = self.stride
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype.kind == "f",
            x_type.ndim == 4,
            w_type.ndim == 6,
            x_type.shape[1] == w_type.shape[3],
            (x_type.shape[2] - w_type.shape[4]) // sy + 1 == w_type.shape[1],
            (x_type.shape[3] - w_type.shape[5]) // sx + 1 == w_type.shape[2],
        )
        if type_check.eval(n_in) == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 3,
                b_type.shape[0] == w_type.shape[0],
                b_type.shape[1] == w_type.shape[1],
                b_type.shape[2] == w_type.shape[2],
            )

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        # The output takes the dtype of x, as in convolution_2d.
        if W.dtype != x.dtype:
            W = W.astype(x.dtype)
        y = _local_conv(x, W, self.stride)
        if len(inputs) == 3:
            y += inputs[2]
        return (y,)

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                node = LocalConvolution2DGradData(x.shape, x.dtype, self.stride)
                ret.append(node.apply((W, gy))[0])
            elif i == 1:
                node = LocalConvolution2DGradW(W.shape, W.dtype, self.stride)
                ret.append(node.apply((x, gy))[0])
            else:
                ret.append(primitive_ops.sum(gy, axis=0))
        return tuple(ret)


class LocalConvolution2DGradData(function_node.FunctionNode):
    """Gradient of local_convolution_2d with respect to ``x`` (of ``x_dtype``)."""

    def __init__(self, x_shape, x_dtype, stride):
        self.x_shape = x_shape
        self.x_dtype = x_dtype
        self.stride = stride

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        W, gy = inputs
        if W.dtype != self.x_dtype:
            W = W.astype(self.x_dtype)
        if gy.dtype != self.x_dtype:
            gy = gy.astype(self.x_dtype)
        return (_grad_x(gy, W, self.x_shape, self.stride),)

    def backward(self, indexes, grad_outputs):
        W, gy = self.get_retained_inputs()
        (ggx,) = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                node = LocalConvolution2DGradW(W.shape, W.dtype, self.stride)
                ret.append(node.apply((ggx, gy))[0])
            else:
                node = LocalConvolution2DFunction(self.stride)
                ret.append(node.apply((ggx, W))[0])
        return tuple(ret)


class LocalConvolution2DGradW(function_node.FunctionNode):
    """Gradient of local_convolution_2d with respect to ``W`` (of ``w_dtype``)."""

    def __init__(self, w_shape, w_dtype, stride):
        self.w_shape = w_shape
        self.w_dtype = w_dtype
        self.stride = stride

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, gy = inputs
        if gy.dtype != x.dtype:
            gy = gy.astype(x.dtype)
        gW = _grad_w(x, gy, self.w_shape, self.stride)
        return (gW.astype(self.w_dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        (ggW,) = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                node = LocalConvolution2DGradData(x.shape, x.dtype, self.stride)
                ret.append(node.apply((ggW, gy))[0])
            else:
                node = LocalConvolution2DFunction(self.stride)
                ret.append(node.apply((x, ggW))[0])
        return tuple(ret)


def local_convolution_2d(x, W, b=None, stride=1):
    """Two-dimensional locally-connected (unshared) convolution.

    Like :func:`~chainer.functions.convolution_2d` without padding, except
    that the filter weights are not shared across spatial positions: each
    output position ``(i, j)`` has its own filter ``W[:, i, j]``.

    .. math::

        y_{n,o,i,j} = \\sum_{c,p,q} W_{o,i,j,c,p,q}\\,
            x_{n,c,i s_Y + p,j s_X + q} + b_{o,i,j}

    with output size :math:`h_O = (h - k_H) // s_Y + 1` and
    :math:`w_O = (w - k_W) // s_X + 1`.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c_I, h, w)``.
        W (~chainer.Variable or :ref:`ndarray`): Float weights of shape
            ``(c_O, h_O, w_O, c_I, k_H, k_W)``; a dtype other than that of
            ``x`` is cast to it for the computation.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias of shape
            ``(c_O, h_O, w_O)``.
        stride (int or pair of ints): Stride of filter applications.
            ``stride=s`` and ``stride=(s, s)`` are equivalent.

    Returns:
        ~chainer.Variable: Array of shape ``(n, c_O, h_O, w_O)`` and the
        dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
        >>> W = np.ones((1, 2, 2, 1, 2, 2), np.float32)
        >>> F.local_convolution_2d(x, W).array
        array([[[[ 8., 12.],
                 [20., 24.]]]], dtype=float32)
    """
    inputs = (x, W) if b is None else (x, W, b)
    return LocalConvolution2DFunction(stride).apply(inputs)[0]
