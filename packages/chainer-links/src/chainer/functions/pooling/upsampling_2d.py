from chainer import function_node
from chainer.functions.pooling import _util
from chainer.functions.pooling import pooling_2d
from chainer.functions.pooling import pooling_nd
from chainer.utils import conv
from chainer.utils import type_check


class Upsampling2D(pooling_2d.Pooling2D):
    """Places each input element at its pooling window's ``indexes`` tap."""

    def __init__(
        self, indexes, ksize, stride=None, pad=0, outsize=None, cover_all=True
    ):
        super().__init__(ksize, stride, pad, cover_all)
        self.indexes = indexes
        self.outh, self.outw = (
            (None, None) if outsize is None else conv.as_tuple(outsize, 2, "outsize")
        )

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
            x_type.shape == self.indexes.shape,
        )
        _util.expect_unpooled_input(self, x_type, (self.outh, self.outw))

    def forward(self, inputs):
        (x,) = inputs
        outs = _util.unpooled_size(
            self, x.shape[2:], (self.outh, self.outw), "upsampling_2d"
        )
        self._setup(outs)
        buf = pooling_nd.scatter_windows(
            x,
            self.indexes,
            self._tap_slices(),
            self._padded_shape(x.shape[:2]),
            self._disjoint,
        )
        return (pooling_nd.crop(buf, self.pad, outs),)

    def backward(self, indexes, grad_outputs):
        return Upsampling2DGrad(self).apply(grad_outputs)


class Upsampling2DGrad(function_node.FunctionNode):
    """Reads each window's ``indexes`` tap of the output gradient."""

    def __init__(self, upsampling):
        self._up = upsampling

    def forward(self, inputs):
        (gy,) = inputs
        p = self._up
        gy = conv.pad_spatial(gy, p.pad, p._pad_hi, 0)
        return (pooling_nd.gather_windows(gy, p.indexes, p._tap_slices()),)

    def backward(self, indexes, grad_outputs):
        p = self._up
        return Upsampling2D(
            p.indexes, p.ksize, p.stride, p.pad, p._in_size, p.cover_all
        ).apply(grad_outputs)


def upsampling_2d(x, indexes, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """Upsampling using pooling indices.

    The inverse of :func:`~chainer.functions.max_pooling_2d` with
    ``return_indices=True``: each input element goes to the window position
    that the max pooling selected, and the rest of the output is zero
    (overlapping windows add up).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)``.
        indexes (:ref:`ndarray`): Integer array of ``x``'s shape: the
            window-local tap (``i * kw + j``) of each element, as returned by
            ``max_pooling_2d(..., return_indices=True)`` (or
            ``MaxPooling2D.indexes``).
        ksize (int or pair of ints): ``ksize`` of the max pooling.
        stride (int or pair of ints or None): ``stride`` of the max pooling;
            ``None`` uses ``ksize``.
        pad (int or pair of ints): ``pad`` of the max pooling.
        outsize (None or pair of ints): Output size ``(out_h, out_w)``, e.g.
            the input size of the max pooling. If ``None``, it is
            :func:`~chainer.utils.conv.get_deconv_outsize` of ``x``'s size.
        cover_all (bool): ``cover_all`` of the max pooling.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c, out_h, out_w)``, same
        dtype as ``x``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> y, indexes = F.max_pooling_2d(x, 2, return_indices=True)
        >>> F.upsampling_2d(y, indexes, 2, outsize=x.shape[2:]).array[0, 0]
        array([[ 0.,  0.,  0.,  0.],
               [ 0.,  6.,  0.,  8.],
               [ 0.,  0.,  0.,  0.],
               [ 0., 14.,  0., 16.]], dtype=float32)
    """
    func = Upsampling2D(indexes, ksize, stride, pad, outsize, cover_all)
    (y,) = func.apply((x,))
    return y
