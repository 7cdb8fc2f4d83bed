from chainer.links.connection import convolution_2d


class DilatedConvolution2D(convolution_2d.Convolution2D):
    """Two-dimensional dilated convolutional layer.

    A :class:`~chainer.links.Convolution2D` whose filter elements are
    ``dilate`` apart (see :func:`~chainer.functions.dilated_convolution_2d`).

    Args:
        in_channels (int or None): Number of input channels (None: inferred
            from the first input; ``DilatedConvolution2D(out_channels,
            ksize)`` is the short form).
        out_channels (int): Number of output channels.
        ksize (int or pair of ints): Filter size.
        stride (int or pair of ints): Stride.
        pad (int or pair of ints): Zero padding.
        dilate (int or pair of ints): Dilation factor ``(d_Y, d_X)``.
        nobias (bool): If ``True``, the layer has no bias.
        initialW (:ref:`initializer`): Filter initializer (LeCunNormal).
        initial_bias (:ref:`initializer`): Bias initializer (zero).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> layer = L.DilatedConvolution2D(1, 2, 3, dilate=2)
        >>> layer(np.zeros((1, 1, 7, 7), np.float32)).shape
        (1, 2, 3, 3)
    """

    def __init__(
        self, in_channels, out_channels, ksize=None, stride=1, pad=0, dilate=1,
        nobias=False, initialW=None, initial_bias=None,
    ):  # fmt: skip
        super().__init__(
            in_channels, out_channels, ksize, stride, pad, nobias, initialW,
            initial_bias, dilate=dilate,
        )  # fmt: skip
