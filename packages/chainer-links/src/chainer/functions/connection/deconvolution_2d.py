from chainer.functions.connection import _util
from chainer.functions.connection import deconvolution_nd
from chainer.utils import conv


class Deconvolution2DFunction(deconvolution_nd.DeconvolutionND):
    """Two-dimensional deconvolution: :class:`DeconvolutionND` with ``ndim=2``.

    Takes Chainer's 2-d arguments: ``stride``, ``pad``, ``outsize`` and the
    keyword-only ``dilate`` and ``groups``.
    """

    def __init__(self, stride=1, pad=0, outsize=None, **kwargs):
        dilate, groups = conv.parse_dilate_groups(kwargs, "Deconvolution2DFunction")
        super().__init__(2, stride, pad, outsize, dilate, groups)


def deconvolution_2d(x, W, b=None, stride=1, pad=0, outsize=None, **kwargs):
    """Two-dimensional deconvolution function.

    The transpose of :func:`convolution_2d` with the same filters: every
    input pixel scatters its filter-weighted copy onto the output. Unless
    ``outsize`` gives it, the output size is

    .. math::

        h_O &= s_Y (h - 1) + k_H + (k_H - 1)(d_Y - 1) - 2p_H,\\\\
        w_O &= s_X (w - 1) + k_W + (k_W - 1)(d_X - 1) - 2p_W.

    An ``outsize`` is valid when the matching convolution, with or without
    ``cover_all``, maps it back to ``(h, w)``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input of shape
            ``(n, c_I, h, w)``.
        W (~chainer.Variable or :ref:`ndarray`): Filters of shape
            ``(c_I, c_O / G, k_H, k_W)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias of shape
            ``(c_O,)``.
        stride (int or pair of ints): Stride ``(s_Y, s_X)``.
        pad (int or pair of ints): Padding ``(p_H, p_W)`` removed from the
            output.
        outsize (None or pair of ints): Output size ``(h_O, w_O)``.
        **kwargs: ``dilate`` (int or pair of ints, default 1) and ``groups``
            (int :math:`G`, default 1).

    Returns:
        ~chainer.Variable: Output of shape ``(n, c_O, h_O, w_O)``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.random.uniform(0, 1, (1, 3, 4, 4)).astype(np.float32)
        >>> W = np.random.uniform(0, 1, (3, 2, 3, 3)).astype(np.float32)
        >>> F.deconvolution_2d(x, W, stride=2, pad=1).shape
        (1, 2, 7, 7)
        >>> F.deconvolution_2d(x, W, stride=2, pad=1, outsize=(8, 8)).shape
        (1, 2, 8, 8)
    """
    fnode = Deconvolution2DFunction(stride, pad, outsize, **kwargs)
    return _util.apply(fnode, x, W, b)
