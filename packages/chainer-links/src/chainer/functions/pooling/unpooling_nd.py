from chainer import backend
from chainer import function_node
from chainer.functions.pooling import _util
from chainer.functions.pooling import pooling_nd
from chainer.utils import conv
from chainer.utils import type_check


class UnpoolingND(pooling_nd.PoolingND):
    """Copies each input element over its pooling window (overlaps add up)."""

    def __init__(self, ndim, ksize, stride=None, pad=0, outsize=None, cover_all=True):
        super().__init__(ndim, ksize, stride, pad, cover_all)
        self.outs = None if outsize is None else conv.as_tuple(outsize, ndim, "outsize")

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == 2 + self.ndim)
        if self.outs is not None:
            _util.expect_unpooled_input(self, x_type, self.outs)

    def forward(self, inputs):
        (x,) = inputs
        outs = self.outs
        if outs is None:
            outs = _util.unpooled_size(
                self, x.shape[2:], (None,) * self.ndim, "unpooling"
            )
        self._setup(outs)
        buf = pooling_nd.spread_windows(
            x, self._tap_slices(), self._padded_shape(x.shape[:2]), self._disjoint
        )
        return (pooling_nd.crop(buf, self.pad, outs),)

    def backward(self, indexes, grad_outputs):
        return UnpoolingNDGrad(self).apply(grad_outputs)


class UnpoolingNDGrad(function_node.FunctionNode):
    """Sums the output gradient over each window."""

    def __init__(self, unpool):
        self._unpool = unpool

    def forward(self, inputs):
        (gy,) = inputs
        p = self._unpool
        xp = backend.get_array_module(gy)
        gy = conv.pad_spatial(gy, p.pad, p._pad_hi, 0)
        return (pooling_nd.reduce_windows(gy, p.ksize, p.stride, p._out_size, xp.add),)

    def backward(self, indexes, grad_outputs):
        p = self._unpool
        return UnpoolingND(
            p.ndim, p.ksize, p.stride, p.pad, p._in_size, p.cover_all
        ).apply(grad_outputs)


def unpooling_nd(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """Inverse operation of N-dimensional spatial pooling.

    Acts like :class:`~chainer.links.DeconvolutionND` without parameters:
    each input element is copied over its pooling window of the output, and
    overlapping windows add up.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, d_1, ..., d_N)``.
        ksize (int or tuple of ints): Window size; ``k`` means ``(k, ..., k)``.
        stride (int or tuple of ints or None): Stride of window applications;
            ``None`` uses ``ksize``.
        pad (int or tuple of ints): Padding cut from both sides of the
            output.
        outsize (None or tuple of ints): Spatial output shape. If ``None``,
            it is :func:`~chainer.utils.conv.get_deconv_outsize` of the input
            size; otherwise the pooling output size of ``outsize``
            (:func:`~chainer.utils.conv.get_conv_outsize`) must equal the
            input's spatial shape.
        cover_all (bool): Whether the matching pooling used ``cover_all``
            (the output may then be smaller).

    Returns:
        ~chainer.Variable: Output of shape ``(n, c, *outsize)``, same dtype.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.array([[[1, 2]]], np.float32)
        >>> F.unpooling_nd(x, 2, cover_all=False).array
        array([[[1., 1., 2., 2.]]], dtype=float32)
    """
    ndim = len(x.shape[2:])
    (y,) = UnpoolingND(ndim, ksize, stride, pad, outsize, cover_all).apply((x,))
    return y


def unpooling_1d(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """Inverse operation of 1-dimensional spatial pooling.

    :func:`unpooling_nd` for inputs of shape ``(n, c, w)``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array ``(n, c, w)``.
        ksize (int or tuple of ints): Window size.
        stride (int or tuple of ints or None): Stride; ``None`` uses ``ksize``.
        pad (int or tuple of ints): Padding cut from the output.
        outsize (None or tuple of ints): Output width.
        cover_all (bool): Whether the matching pooling used ``cover_all``.

    Returns:
        ~chainer.Variable: See :func:`unpooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly one spatial axis.
    """
    _util.check_ndim(x, 1)
    return unpooling_nd(x, ksize, stride, pad, outsize, cover_all)


def unpooling_3d(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """Inverse operation of 3-dimensional spatial pooling.

    :func:`unpooling_nd` for inputs of shape ``(n, c, d, h, w)``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array ``(n, c, d, h, w)``.
        ksize (int or tuple of ints): Window size.
        stride (int or tuple of ints or None): Stride; ``None`` uses ``ksize``.
        pad (int or tuple of ints): Padding cut from the output.
        outsize (None or tuple of ints): Output shape ``(d, h, w)``.
        cover_all (bool): Whether the matching pooling used ``cover_all``.

    Returns:
        ~chainer.Variable: See :func:`unpooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly three spatial axes.
    """
    _util.check_ndim(x, 3)
    return unpooling_nd(x, ksize, stride, pad, outsize, cover_all)
