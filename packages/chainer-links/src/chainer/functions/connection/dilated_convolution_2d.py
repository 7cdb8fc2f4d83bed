from chainer.functions.connection import convolution_2d


def dilated_convolution_2d(x, W, b=None, stride=1, pad=0, dilate=1, cover_all=False):
    """Two-dimensional dilated convolution function.

    :func:`~chainer.functions.convolution_2d` with window elements
    :math:`(d_Y, d_X)` apart. The output size is

    .. math::

        h_O &= (h + 2p_H - k_H - (k_H - 1)(d_Y - 1)) / s_Y + 1,\\\\
        w_O &= (w + 2p_W - k_W - (k_W - 1)(d_X - 1)) / s_X + 1.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input of shape
            ``(n, c_I, h, w)``.
        W (~chainer.Variable or :ref:`ndarray`): Filters of shape
            ``(c_O, c_I, k_H, k_W)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias ``(c_O,)``.
        stride (int or pair of ints): Stride ``(s_Y, s_X)``.
        pad (int or pair of ints): Zero padding ``(p_H, p_W)``.
        dilate (int or pair of ints): Dilation ``(d_Y, d_X)``.
        cover_all (bool): If ``True``, all spatial locations are convolved
            into some output pixels.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c_O, h_O, w_O)``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.ones((1, 1, 7, 7), np.float32)
        >>> W = np.ones((1, 1, 3, 3), np.float32)
        >>> F.dilated_convolution_2d(x, W, dilate=2).shape
        (1, 1, 3, 3)
    """
    fnode = convolution_2d.Convolution2DFunction(stride, pad, cover_all, dilate=dilate)
    args = (x, W) if b is None else (x, W, b)
    (y,) = fnode.apply(args)
    return y
