from chainer.functions.pooling import pooling_2d
from chainer.functions.pooling import unpooling_nd


class Unpooling2D(pooling_2d.Pooling2D, unpooling_nd.UnpoolingND):
    """Spatial unpooling node; ``outh, outw`` is the requested output size."""

    def __init__(self, ksize, stride=None, pad=0, outsize=None, cover_all=True):
        unpooling_nd.UnpoolingND.__init__(
            self, 2, ksize, stride, pad, outsize, cover_all
        )

    outh = property(lambda self: None if self.outs is None else self.outs[0])
    outw = property(lambda self: None if self.outs is None else self.outs[1])


def unpooling_2d(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """Inverse operation of pooling for 2d array.

    Acts like :class:`~chainer.links.Deconvolution2D` without parameters:
    each input element is copied over its pooling window of the output, and
    overlapping windows add up.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)``.
        ksize (int or pair of ints): Window size; ``k`` means ``(k, k)``.
        stride (int or pair of ints or None): Stride of window applications;
            ``None`` uses ``ksize``.
        pad (int or pair of ints): Padding cut from both sides of the output.
        outsize (None or pair of ints): Output size ``(out_h, out_w)``. If
            ``None``, it is :func:`~chainer.utils.conv.get_deconv_outsize` of
            the input size; otherwise
            :func:`~chainer.utils.conv.get_conv_outsize` of it must equal the
            input's spatial shape.
        cover_all (bool): Whether the matching pooling used ``cover_all``;
            if ``True`` the output may be smaller than without it.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c, out_h, out_w)``, same
        dtype as ``x``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.array([[[[1, 2], [3, 4]]]], np.float32)
        >>> F.unpooling_2d(x, 2, cover_all=False).array[0, 0]
        array([[1., 1., 2., 2.],
               [1., 1., 2., 2.],
               [3., 3., 4., 4.],
               [3., 3., 4., 4.]], dtype=float32)
    """
    (y,) = Unpooling2D(ksize, stride, pad, outsize, cover_all).apply((x,))
    return y
