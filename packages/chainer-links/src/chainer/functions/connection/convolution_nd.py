from chainer import backend
from chainer import function_node
from chainer.functions.connection import _util
from chainer.utils import conv
from chainer.utils import type_check


class ConvolutionND(function_node.FunctionNode):
    """N-dimensional convolution (cross-correlation) with groups and dilation.

    The reference forward contracts the filter windows of ``x``
    (:func:`chainer.utils.conv.im2col_nd`) with ``W``, one ``tensordot`` per
    group. The weight gradient is :class:`ConvolutionNDGradW` and the input
    gradient a deconvolution, so both are differentiable again.

    Kernel overrides (chainer-cpu, chainer-cuda) read the documented
    attributes ``ndim``, ``stride``, ``pad``, ``cover_all``, ``dilate`` and
    ``groups``, and may leave in ``patches`` the patch matrices of ``x`` in a
    layout of their own, which the backward pass hands to the weight
    gradient's node (the reference forward leaves None).
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
        self.patches = None

    # The name chainer-cuda's kernels used before ``patches`` was documented.
    _cols = property(
        lambda self: self.patches, lambda self, value: setattr(self, "patches", value)
    )

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
        self.patches = None
        xp = backend.get_array_module(x)
        dtype = x.dtype
        x, W = _util.in_compute_dtype(xp, x, W)
        nd = self.ndim
        col = conv.im2col_nd(
            x, W.shape[2:], self.stride, self.pad, self.cover_all, self.dilate
        )
        # col is (n, c_I, *out_size, *ksize): contract c_I and the taps.
        axes = ((1, *range(2 + nd, 2 + 2 * nd)), (1, *range(2, 2 + nd)))
        ys = [
            xp.tensordot(c, w, axes)
            for c, w in zip(
                xp.split(col, self.groups, 1), xp.split(W, self.groups), strict=True
            )
        ]
        y = xp.moveaxis(xp.concatenate(ys, axis=-1), -1, 1)
        if len(inputs) == 3:
            y = y + inputs[2].reshape((-1,) + (1,) * nd)
        return (y.astype(dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        # The patch matrices go to the weight gradient and are freed with it.
        patches, self.patches = self.patches, None
        ret = []
        if 0 in indexes:
            ret.append(_util.deconvolve(self, gy, W, x.shape[2:]))
        if 1 in indexes:
            ret.append(_util.grad_weight(self, x, gy, W, patches))
        if 2 in indexes:
            ret.append(_util.grad_bias(gy))
        return tuple(ret)


class ConvolutionNDGradW(function_node.FunctionNode):
    """Weight gradient of :class:`ConvolutionND` from ``(x, gy)``.

    The reference forward contracts ``gy`` with the filter windows of ``x``
    over the batch and output positions. Its own gradients are a
    deconvolution (for ``x``) and a convolution (for ``gy``).

    Besides the convolution's geometry it documents ``W_shape`` and
    ``W_dtype`` (of the gradient) and ``patches``: what a kernel override of
    the convolution's forward kept for this node (None otherwise); the
    reference forward drops it.
    """

    def __init__(
        self, ndim, stride, pad, cover_all, dilate, groups, W_shape, W_dtype,
        patches=None,
    ):  # fmt: skip
        self.ndim = ndim
        self.stride = stride
        self.pad = pad
        self.cover_all = cover_all
        self.dilate = dilate
        self.groups = groups
        self.W_shape = tuple(W_shape)
        self.W_dtype = W_dtype
        self.patches = patches

    _cols = ConvolutionND._cols

    def forward(self, inputs):
        x, gy = inputs
        self.retain_inputs((0, 1))
        self.patches = None
        xp = backend.get_array_module(x)
        x, gy = _util.in_compute_dtype(xp, x, gy)
        col = conv.im2col_nd(
            x, self.W_shape[2:], self.stride, self.pad, self.cover_all, self.dilate
        )
        # Sum over the batch and the output positions, group by group.
        axes = (0, *range(2, 2 + self.ndim))
        gW = xp.concatenate(
            [
                xp.tensordot(g, c, (axes, axes))
                for g, c in zip(
                    xp.split(gy, self.groups, 1),
                    xp.split(col, self.groups, 1),
                    strict=True,
                )
            ]
        )
        return (gW.astype(self.W_dtype, copy=False),)

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
