from chainer.functions.pooling import max_pooling_nd
from chainer.functions.pooling import pooling_2d


class MaxPooling2D(pooling_2d.Pooling2D, max_pooling_nd.MaxPoolingND):
    """Spatial max pooling node; ``indexes`` holds the window argmax."""

    def __init__(self, ksize, stride=None, pad=0, cover_all=True, return_indices=False):
        max_pooling_nd.MaxPoolingND.__init__(
            self, 2, ksize, stride, pad, cover_all, return_indices
        )


def max_pooling_2d(x, ksize, stride=None, pad=0, cover_all=True, return_indices=False):
    """Spatial max pooling function.

    Acts like :func:`~chainer.functions.convolution_2d` without parameters:
    each window of each channel is reduced to its maximum.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)``.
        ksize (int or pair of ints): Window size; ``k`` means ``(k, k)``.
        stride (int or pair of ints or None): Stride of window applications;
            ``None`` uses ``ksize``.
        pad (int or pair of ints): Spatial padding on both sides; padded
            values never win the maximum.
        cover_all (bool): If ``True``, all spatial locations are pooled into
            some output pixels (the output may get larger).
        return_indices (bool): If ``True``, also return the window-local
            argmax of each output element, the ``indexes`` that
            :func:`~chainer.functions.upsampling_2d` takes.

    Returns:
        ~chainer.Variable or tuple: The output of shape ``(n, c, out_h,
        out_w)`` with ``out_h = (h + 2 ph - kh [+ sy - 1 if cover_all]) // sy
        + 1`` (likewise ``out_w``); with ``return_indices``, a pair of it and
        an ``int64`` array of the same shape holding, for each output, the tap
        ``i * kw + j`` of the window element ``(i, j)`` that won.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> y, idx = F.max_pooling_2d(x, 2, return_indices=True)
        >>> y.array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
        >>> idx
        array([[[[3, 3],
                 [3, 3]]]])
    """
    func = MaxPooling2D(ksize, stride, pad, cover_all, return_indices)
    (y,) = func.apply((x,))
    if return_indices:
        return y, func.indexes
    return y
