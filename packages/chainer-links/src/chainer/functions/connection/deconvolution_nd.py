from chainer import backend
from chainer import function_node
from chainer.functions.connection import _util
from chainer.utils import conv
from chainer.utils import type_check


class DeconvolutionND(function_node.FunctionNode):
    """N-dimensional deconvolution (transposed convolution) with groups.

    The reference forward multiplies every input pixel with the filters
    (``tensordot`` per group) and sums the resulting windows onto the output
    (:func:`chainer.utils.conv.col2im_nd`). Kernel overrides read the
    documented attributes ``ndim``, ``stride``, ``pad``, ``dilate``,
    ``groups`` and ``outsize``, and call :meth:`set_output_geometry`.
    """

    def __init__(self, ndim, stride=1, pad=0, outsize=None, dilate=1, groups=1):
        self.ndim = ndim
        self.stride, self.pad, self.dilate, self.groups = _util.check_options(
            self.label, ndim, stride, pad, dilate, groups
        )
        self.outsize = (
            None if outsize is None else conv.as_tuple(outsize, ndim, "outsize")
        )
        self.cover_all = None

    def _default_outsize(self, in_size, ksize):
        return tuple(
            conv.get_deconv_outsize(size, k, s, p, d=d)
            for size, k, s, p, d in zip(
                in_size, ksize, self.stride, self.pad, self.dilate, strict=True
            )
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
            x_type.shape[1] == w_type.shape[0],
        )
        if type_check.eval(n_in) == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[1] * self.groups,
            )
        x_shape = tuple(type_check.eval(x_type.shape))
        w_shape = tuple(type_check.eval(w_type.shape))
        if x_shape[1] % self.groups:
            raise type_check.InvalidType(
                "x.shape[1] % groups == 0",
                f"x.shape[1] = {x_shape[1]}, groups = {self.groups}",
            )
        geometry = tuple(
            zip(
                x_shape[2:],
                w_shape[2:],
                self.stride,
                self.pad,
                self.dilate,
                strict=True,
            )
        )
        if self.outsize is None:
            out_size = self._default_outsize(x_shape[2:], w_shape[2:])
            if min(out_size, default=1) <= 0:
                raise conv.OutputSizeError(
                    "output size > 0 on every spatial axis",
                    f"output size {out_size} for x.shape = {x_shape}, "
                    f"W.shape = {w_shape}, stride = {self.stride}, pad = {self.pad}",
                )
            return
        for out, (size, k, s, p, d) in zip(self.outsize, geometry, strict=True):
            lower = conv.get_conv_outsize(out, k, s, p, d=d)
            upper = conv.get_conv_outsize(out, k, s, p, cover_all=True, d=d)
            if out <= 0 or not lower <= size <= upper:
                raise type_check.InvalidType(
                    "outsize consistent with the input size: "
                    "get_conv_outsize(outsize) <= x.shape[2:] <= "
                    "get_conv_outsize(outsize, cover_all=True)",
                    f"outsize = {self.outsize}, x.shape = {x_shape}, "
                    f"W.shape = {w_shape}, stride = {self.stride}, pad = {self.pad}",
                )

    def forward(self, inputs):
        x, W = inputs[:2]
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x)
        out_size = self.set_output_geometry(x.shape[2:], W.shape[2:])
        dtype = x.dtype
        x, W = _util.in_compute_dtype(xp, x, W)
        nd = self.ndim
        # Each input pixel's filter-weighted copy, (n, *in_size, c_O, *ksize)
        # per group, summed onto the output by col2im.
        cols = [
            xp.tensordot(xg, wg, (1, 0))
            for xg, wg in zip(
                xp.split(x, self.groups, 1), xp.split(W, self.groups), strict=True
            )
        ]
        col = xp.moveaxis(xp.concatenate(cols, axis=1 + nd), 1 + nd, 1)
        y = conv.col2im_nd(col, self.stride, self.pad, out_size, self.dilate)
        if len(inputs) == 3:
            y = y + inputs[2].reshape((-1,) + (1,) * nd)
        return (y.astype(dtype, copy=False),)

    def set_output_geometry(self, in_size, ksize):
        """Returns the output size, and sets ``cover_all`` for the backward.

        ``cover_all`` becomes what the convolution mapping the output back to
        ``in_size`` needs on each axis (one bool, or a tuple when the axes
        differ). Kernel overrides of the forward call it too.

        Args:
            in_size (tuple of int): Spatial shape of ``x``.
            ksize (tuple of int): Spatial shape of the filters.

        Returns:
            tuple of int: The spatial shape of the output.
        """
        out_size = self.outsize or self._default_outsize(in_size, ksize)
        cover_all = tuple(
            size != conv.get_conv_outsize(out, k, s, p, d=d)
            for size, out, k, s, p, d in zip(
                in_size, out_size, ksize, self.stride, self.pad, self.dilate,
                strict=True,
            )
        )  # fmt: skip
        self.cover_all = cover_all[0] if len(set(cover_all)) == 1 else cover_all
        return out_size

    # The name chainer-cuda's kernels used before it was documented.
    _set_output_geometry = set_output_geometry

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(_util.convolve(self, gy, W))
        if 1 in indexes:
            ret.append(_util.grad_weight(self, gy, x, W))
        if 2 in indexes:
            ret.append(_util.grad_bias(gy))
        return tuple(ret)


def deconvolution_nd(
    x, W, b=None, stride=1, pad=0, outsize=None, dilate=1, groups=1
):  # fmt: skip
    """N-dimensional deconvolution function.

    The transpose (adjoint) of :func:`convolution_nd` with the same filters:
    every input element scatters its filter-weighted copy onto the output.
    The output size of spatial axis :math:`i` is

    .. math:: o_i = s_i (d_i - 1) + k_i + (k_i - 1)(dl_i - 1) - 2 p_i

    unless ``outsize`` gives it; an ``outsize`` is valid when the matching
    convolution (with or without ``cover_all``) maps it back to ``d_i``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input of shape
            ``(n, c_I, d_1, ..., d_N)``.
        W (~chainer.Variable or :ref:`ndarray`): Filters of shape
            ``(c_I, c_O / G, k_1, ..., k_N)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias ``(c_O,)``.
        stride (int or tuple of ints): Stride per spatial axis.
        pad (int or tuple of ints): Padding removed per spatial axis.
        outsize (None or tuple of ints): Output spatial size; estimated
            from the input when None.
        dilate (int or tuple of ints): Dilation factor per spatial axis.
        groups (int): Number of channel groups :math:`G`.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c_O, o_1, ..., o_N)``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.ones((2, 4, 3, 3, 3), np.float32)
        >>> W = np.ones((4, 2, 2, 2, 2), np.float32)
        >>> F.deconvolution_nd(x, W, stride=2).shape
        (2, 2, 6, 6, 6)
    """
    ndim = len(x.shape[2:])
    fnode = DeconvolutionND(ndim, stride, pad, outsize, dilate, groups)
    return _util.apply(fnode, x, W, b)


def deconvolution_1d(
    x, W, b=None, stride=1, pad=0, outsize=None, dilate=1, groups=1
):  # fmt: skip
    """1-dimensional deconvolution (:func:`deconvolution_nd` on 1-d data).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input ``(n, c_I, d)``.
        W (~chainer.Variable or :ref:`ndarray`): Filters
            ``(c_I, c_O / groups, k)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias ``(c_O,)``.
        stride (int or tuple of ints): Stride.
        pad (int or tuple of ints): Padding.
        outsize (None or tuple of ints): Output size ``(o,)``.
        dilate (int or tuple of ints): Dilation factor.
        groups (int): Number of channel groups.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c_O, o)``.

    Raises:
        ValueError: If ``x`` is not 3-dimensional.
    """
    _util.check_ndim(x, 1, "deconvolution_1d")
    return deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups)


def deconvolution_3d(
    x, W, b=None, stride=1, pad=0, outsize=None, dilate=1, groups=1
):  # fmt: skip
    """3-dimensional deconvolution (:func:`deconvolution_nd` on 3-d data).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input
            ``(n, c_I, d_1, d_2, d_3)``.
        W (~chainer.Variable or :ref:`ndarray`): Filters
            ``(c_I, c_O / groups, k_1, k_2, k_3)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias ``(c_O,)``.
        stride (int or tuple of ints): Stride.
        pad (int or tuple of ints): Padding.
        outsize (None or tuple of ints): Output size ``(o_1, o_2, o_3)``.
        dilate (int or tuple of ints): Dilation factor.
        groups (int): Number of channel groups.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c_O, o_1, o_2, o_3)``.

    Raises:
        ValueError: If ``x`` is not 5-dimensional.
    """
    _util.check_ndim(x, 3, "deconvolution_3d")
    return deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups)
