from chainer import configuration
from chainer import function_node
from chainer.functions.connection import _util
from chainer.utils import conv
from chainer.utils import type_check


class ConvolutionND(function_node.FunctionNode):
    """N-dimensional convolution (cross-correlation) with groups and dilation.

    The forward pass multiplies the weight matrix with patch matrices of
    ``x`` (see :func:`chainer.utils.conv.convolution_forward`); the output
    is a transposed view that needs no copy (on NumPy it lies in memory as
    ``(c_O, *out_size, n)``). The weight gradient reuses the patch matrix
    (:class:`ConvolutionNDGradW`) and the input gradient is a
    deconvolution, so both are differentiable again.
    """

    def __init__(self, ndim, stride=1, pad=0, cover_all=False, dilate=1, groups=1):
        self.ndim = ndim
        self.stride, self.pad, self.dilate, self.groups = _util.check_options(
            self.label, ndim, stride, pad, dilate, groups
        )
        # A per-axis tuple is accepted too: a deconvolution's backward may need
        # cover_all on some axes only.
        if isinstance(cover_all, (tuple, list)):
            self.cover_all = conv.as_tuple(cover_all, ndim, "cover_all")
        else:
            self.cover_all = bool(cover_all)
        self._cols = None

    def check_type_forward(self, in_types):
        n_in = in_types.size()
        type_check.expect(n_in >= 2, n_in <= 3)
        x_type, w_type = in_types[:2]
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype.kind == "f",
            x_type.ndim == self.ndim + 2,
            w_type.ndim == self.ndim + 2,
            x_type.shape[1] == w_type.shape[1] * self.groups,
        )
        if type_check.eval(n_in) == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[0],
            )
        out_channels = type_check.eval(w_type.shape[0])
        if out_channels % self.groups:
            raise type_check.InvalidType(
                "W.shape[0] % groups == 0",
                f"W.shape[0] = {out_channels}, groups = {self.groups}",
            )
        x_shape = type_check.eval(x_type.shape)
        w_shape = type_check.eval(w_type.shape)
        out_size = [
            conv.get_conv_outsize(size, k, s, p, self.cover_all, d)
            for size, k, s, p, d in zip(
                x_shape[2:],
                w_shape[2:],
                self.stride,
                self.pad,
                self.dilate,
                strict=True,
            )
        ]
        if min(out_size, default=1) <= 0:
            raise conv.OutputSizeError(
                "output size > 0 on every spatial axis",
                f"output size {tuple(out_size)} for x.shape = {tuple(x_shape)}, "
                f"W.shape = {tuple(w_shape)}, stride = {self.stride}, "
                f"pad = {self.pad}, dilate = {self.dilate}",
            )

    def forward(self, inputs):
        x, W = inputs[:2]
        self.retain_inputs((0, 1))
        if W.dtype != x.dtype:
            W = W.astype(x.dtype)
        b = inputs[2] if len(inputs) == 3 else None
        # The patch matrices are kept for the weight gradient only where a
        # backward pass may follow.
        y, self._cols = conv.convolution_forward(
            x, W, b, self.stride, self.pad, self.cover_all, self.dilate, self.groups,
            keep_col=configuration.config.enable_backprop,
        )  # fmt: skip
        return (y,)

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        # The patch matrices go to the weight gradient and are freed with it.
        cols, self._cols = self._cols, None
        ret = []
        if 0 in indexes:
            ret.append(_util.deconvolve(self, gy, W, x.shape[2:]))
        if 1 in indexes:
            ret.append(_util.grad_weight(self, x, gy, W, cols))
        if 2 in indexes:
            ret.append(_util.grad_bias(gy))
        return tuple(ret)


class ConvolutionNDGradW(function_node.FunctionNode):
    """Weight gradient of :class:`ConvolutionND` from ``(x, gy)``.

    GEMMs of ``gy`` with the patch matrices of ``x``, which the forward pass
    hands over when it still has them. Its own gradients are a
    deconvolution (for ``x``) and a convolution (for ``gy``).
    """

    def __init__(
        self, ndim, stride, pad, cover_all, dilate, groups, W_shape, W_dtype,
        cols=None,
    ):  # fmt: skip
        self.ndim = ndim
        self.stride = stride
        self.pad = pad
        self.cover_all = cover_all
        self.dilate = dilate
        self.groups = groups
        self.W_shape = tuple(W_shape)
        self.W_dtype = W_dtype
        self._cols = cols

    def forward(self, inputs):
        x, gy = inputs
        self.retain_inputs((0, 1))
        cols, self._cols = self._cols, None
        if gy.dtype != x.dtype:
            gy = gy.astype(x.dtype)
        gW = conv.convolution_grad_weight(
            x, gy, self.W_shape[2:], self.stride, self.pad, self.cover_all,
            self.dilate, self.groups, cols,
        )  # fmt: skip
        return (gW.reshape(self.W_shape).astype(self.W_dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        (ggW,) = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(_util.deconvolve(self, gy, ggW, x.shape[2:]))
        if 1 in indexes:
            ret.append(_util.convolve(self, x, ggW))
        return tuple(ret)


def convolution_nd(
    x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1, groups=1
):  # fmt: skip
    """N-dimensional convolution function.

    The filters are correlated with windows of ``x`` taken at multiples of
    ``stride`` from ``-pad`` on each spatial axis, with window elements
    ``dilate`` apart. The output size of spatial axis :math:`i` is

    .. math:: o_i = \\lfloor (d_i + 2 p_i - k_i - (k_i - 1)(dl_i - 1))
        / s_i \\rfloor + 1

    (with ``cover_all``, :math:`s_i - 1` is added to the numerator so that
    every input element is read by some window). With ``groups`` :math:`G`
    the channels split into :math:`G` groups convolved separately.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input of shape
            ``(n, c_I, d_1, ..., d_N)``.
        W (~chainer.Variable or :ref:`ndarray`): Filters of shape
            ``(c_O, c_I / G, k_1, ..., k_N)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias of shape
            ``(c_O,)``.
        stride (int or tuple of ints): Stride per spatial axis.
        pad (int or tuple of ints): Zero padding per spatial axis.
        cover_all (bool): If ``True``, all spatial locations are convolved
            into some output pixels (the output may get larger).
        dilate (int or tuple of ints): Dilation factor per spatial axis.
        groups (int): Number of groups of channels :math:`G`; it must
            divide ``c_I`` and ``c_O``.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c_O, o_1, ..., o_N)`` with
        the dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.ones((2, 3, 5, 5, 5), np.float32)
        >>> W = np.ones((4, 3, 3, 3, 3), np.float32)
        >>> F.convolution_nd(x, W, pad=1).shape
        (2, 4, 5, 5, 5)
    """
    ndim = len(x.shape[2:])
    fnode = ConvolutionND(ndim, stride, pad, cover_all, dilate, groups)
    return _util.apply(fnode, x, W, b)


def convolution_1d(
    x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1, groups=1
):  # fmt: skip
    """1-dimensional convolution function (:func:`convolution_nd` on 1-d data).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input of shape
            ``(n, c_I, d)``.
        W (~chainer.Variable or :ref:`ndarray`): Filters of shape
            ``(c_O, c_I / groups, k)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias ``(c_O,)``.
        stride (int or tuple of ints): Stride.
        pad (int or tuple of ints): Zero padding.
        cover_all (bool): See :func:`convolution_nd`.
        dilate (int or tuple of ints): Dilation factor.
        groups (int): Number of channel groups.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c_O, o)``.

    Raises:
        ValueError: If ``x`` is not 3-dimensional.
    """
    _util.check_ndim(x, 1, "convolution_1d")
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)


def convolution_3d(
    x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1, groups=1
):  # fmt: skip
    """3-dimensional convolution function (:func:`convolution_nd` on 3-d data).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input of shape
            ``(n, c_I, d_1, d_2, d_3)``.
        W (~chainer.Variable or :ref:`ndarray`): Filters of shape
            ``(c_O, c_I / groups, k_1, k_2, k_3)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias ``(c_O,)``.
        stride (int or tuple of ints): Stride.
        pad (int or tuple of ints): Zero padding.
        cover_all (bool): See :func:`convolution_nd`.
        dilate (int or tuple of ints): Dilation factor.
        groups (int): Number of channel groups.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c_O, o_1, o_2, o_3)``.

    Raises:
        ValueError: If ``x`` is not 5-dimensional.
    """
    _util.check_ndim(x, 3, "convolution_3d")
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)
