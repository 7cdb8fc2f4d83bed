from chainer.functions.connection import _util
from chainer.functions.connection import convolution_nd
from chainer.utils import conv


class Convolution2DFunction(convolution_nd.ConvolutionND):
    """Two-dimensional convolution: :class:`ConvolutionND` with ``ndim=2``.

    Takes Chainer's 2-d arguments: ``stride``, ``pad``, ``cover_all`` and the
    keyword-only ``dilate`` and ``groups``.
    """

    def __init__(self, stride=1, pad=0, cover_all=False, **kwargs):
        dilate, groups = conv.parse_dilate_groups(kwargs, "Convolution2DFunction")
        super().__init__(2, stride, pad, cover_all, dilate, groups)


def convolution_2d(x, W, b=None, stride=1, pad=0, cover_all=False, **kwargs):
    """Two-dimensional convolution function.

    Correlates filters with windows of ``x`` taken at multiples of the
    stride :math:`(s_Y, s_X)` from :math:`(-p_H, -p_W)`, with window
    elements :math:`(d_Y, d_X)` apart (dilation). The output size is

    .. math::

        h_O &= (h + 2p_H - k_H - (k_H - 1)(d_Y - 1)) / s_Y + 1,\\\\
        w_O &= (w + 2p_W - k_W - (k_W - 1)(d_X - 1)) / s_X + 1

    (floor division; with ``cover_all``, :math:`s_Y - 1` and :math:`s_X - 1`
    are added to the numerators so that every pixel is read by some
    window). The bias, if given, is added to every output location. With
    ``groups`` :math:`G`, input and output channels split into :math:`G`
    groups that are convolved separately.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input of shape
            ``(n, c_I, h, w)``.
        W (~chainer.Variable or :ref:`ndarray`): Filters of shape
            ``(c_O, c_I / G, k_H, k_W)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias of shape
            ``(c_O,)``.
        stride (int or pair of ints): Stride ``(s_Y, s_X)``; ``s`` means
            ``(s, s)``.
        pad (int or pair of ints): Zero padding ``(p_H, p_W)``.
        cover_all (bool): If ``True``, all spatial locations are convolved
            into some output pixels (the output may get larger).
        **kwargs: ``dilate`` (int or pair of ints, dilation ``(d_Y, d_X)``,
            default 1) and ``groups`` (int, default 1; it must divide
            ``c_I`` and ``c_O``).

    Returns:
        ~chainer.Variable: Output of shape ``(n, c_O, h_O, w_O)`` with the
        dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.random.uniform(0, 1, (2, 3, 4, 7)).astype(np.float32)
        >>> W = np.random.uniform(0, 1, (4, 3, 3, 2)).astype(np.float32)
        >>> F.convolution_2d(x, W, stride=(1, 2), pad=1).shape
        (2, 4, 4, 4)
    """
    fnode = Convolution2DFunction(stride, pad, cover_all, **kwargs)
    return _util.apply(fnode, x, W, b)
