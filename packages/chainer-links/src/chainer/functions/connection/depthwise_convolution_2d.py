from chainer import primitive_ops
from chainer.functions.connection import convolution_2d


def depthwise_convolution_2d(x, W, b=None, stride=1, pad=0):
    """Two-dimensional depthwise convolution function.

    Each input channel is convolved with its own ``c_M`` filters (the
    channel multiplier); output channel ``c * c_M + m`` is input channel
    ``c`` correlated with ``W[m, c]``. It is a grouped convolution with one
    group per input channel.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input of shape
            ``(n, c_I, h, w)``.
        W (~chainer.Variable or :ref:`ndarray`): Filters of shape
            ``(c_M, c_I, k_H, k_W)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias of shape
            ``(c_M * c_I,)``.
        stride (int or pair of ints): Stride ``(s_Y, s_X)``.
        pad (int or pair of ints): Zero padding ``(p_H, p_W)``.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c_I * c_M, h_O, w_O)``, with
        :math:`h_O` and :math:`w_O` as in :func:`convolution_2d`.

    Raises:
        ValueError: If ``W`` is not 4-dimensional or its second axis does not
            match the channels of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.ones((2, 3, 5, 5), np.float32)
        >>> W = np.ones((2, 3, 3, 3), np.float32)
        >>> F.depthwise_convolution_2d(x, W, pad=1).shape
        (2, 6, 5, 5)
    """
    if W.ndim != 4 or x.ndim != 4 or W.shape[1] != x.shape[1]:
        raise ValueError(
            "depthwise_convolution_2d: expected x of shape (n, c_I, h, w) and W "
            f"of shape (c_M, c_I, k_H, k_W), got x.shape={x.shape}, "
            f"W.shape={W.shape}"
        )
    multiplier, channels, kh, kw = W.shape
    # (c_M, c_I, kh, kw) -> grouped filters (c_I * c_M, 1, kh, kw).
    w_grouped = primitive_ops.reshape(
        primitive_ops.transpose(W, (1, 0, 2, 3)), (channels * multiplier, 1, kh, kw)
    )
    return convolution_2d.convolution_2d(x, w_grouped, b, stride, pad, groups=channels)
