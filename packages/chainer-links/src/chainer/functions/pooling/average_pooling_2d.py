from chainer.functions.pooling import average_pooling_nd
from chainer.functions.pooling import pooling_2d


class AveragePooling2D(pooling_2d.Pooling2D, average_pooling_nd.AveragePoolingND):
    """Spatial average pooling node (divides by the full window size).

    ``cover_all`` and ``return_indices`` exist for Chainer's signature and are
    ignored, as in Chainer 7: windows never cover all input locations.
    """

    def __init__(self, ksize, stride=None, pad=0, cover_all=True, return_indices=False):
        average_pooling_nd.AveragePoolingND.__init__(self, 2, ksize, stride, pad, False)
        self.return_indices = return_indices


def average_pooling_2d(x, ksize, stride=None, pad=0):
    """Spatial average pooling function.

    Acts like :func:`~chainer.functions.convolution_2d` without parameters:
    each window of each channel is reduced to its mean. Padding reads zeros
    and counts in the window size; windows do not cover all input locations
    (no ``cover_all`` mode).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)``.
        ksize (int or pair of ints): Window size; ``k`` means ``(k, k)``.
        stride (int or pair of ints or None): Stride of window applications;
            ``None`` uses ``ksize``.
        pad (int or pair of ints): Spatial zero padding on both sides.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c, out_h, out_w)`` with
        ``out_h = (h + 2 ph - kh) // sy + 1`` (likewise ``out_w``), same dtype
        as ``x``.

    Example:
        Global average pooling:

        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2)
        >>> F.average_pooling_2d(x, x.shape[2:]).array.ravel()
        array([1.5, 5.5], dtype=float32)
    """
    (y,) = AveragePooling2D(ksize, stride, pad, False).apply((x,))
    return y
