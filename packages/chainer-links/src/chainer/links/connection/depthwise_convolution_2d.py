from chainer import initializers
from chainer import link
from chainer import variable
from chainer.functions.connection import depthwise_convolution_2d
from chainer.utils import conv


class DepthwiseConvolution2D(link.Link):
    """Two-dimensional depthwise convolutional layer.

    Holds filters ``W`` of shape ``(channel_multiplier, in_channels, k_H,
    k_W)`` and a bias of shape ``(channel_multiplier * in_channels,)`` and
    applies :func:`~chainer.functions.depthwise_convolution_2d`.

    Args:
        in_channels (int or None): Number of input channels (None: inferred
            from the first input).
        channel_multiplier (int): Number of filters per input channel.
        ksize (int or pair of ints): Filter size ``(k_H, k_W)``.
        stride (int or pair of ints): Stride ``(s_Y, s_X)``.
        pad (int or pair of ints): Zero padding ``(p_H, p_W)``.
        nobias (bool): If ``True``, the layer has no bias.
        initialW (:ref:`initializer`): Initializer (or scalar or array) of
            the filters; None means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias (:ref:`initializer`): Initializer (or scalar or array)
            of the bias; None means zero.

    Attributes:
        W (~chainer.Parameter): Filters.
        b (~chainer.Parameter): Bias (None with ``nobias``).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> layer = L.DepthwiseConvolution2D(3, 2, 3, pad=1)
        >>> layer(np.zeros((1, 3, 5, 5), np.float32)).shape
        (1, 6, 5, 5)
    """

    def __init__(
        self, in_channels, channel_multiplier, ksize, stride=1, pad=0,
        nobias=False, initialW=None, initial_bias=None,
    ):  # fmt: skip
        super().__init__()
        self.ksize = conv.as_tuple(ksize, 2, "ksize")
        self.stride = conv.as_tuple(stride, 2, "stride")
        self.pad = conv.as_tuple(pad, 2, "pad")
        self.channel_multiplier = channel_multiplier
        self.in_channels = in_channels
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if nobias:
                self.b = None
            else:
                if initial_bias is None:
                    initial_bias = 0
                self.b = variable.Parameter(initializers._get_initializer(initial_bias))
            if in_channels is not None:
                self._initialize_params(in_channels)

    def _initialize_params(self, in_channels):
        self.in_channels = in_channels
        self.W.initialize((self.channel_multiplier, in_channels, *self.ksize))
        if self.b is not None:
            self.b.initialize(self.channel_multiplier * in_channels)

    @property
    def printable_specs(self):
        """``(name, value)`` pairs shown in the repr."""
        yield "in_channels", self.in_channels
        yield "channel_multiplier", self.channel_multiplier
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "pad", self.pad
        yield "nobias", self.b is None

    def forward(self, x):
        """Applies the depthwise convolution.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input of shape
                ``(n, in_channels, h, w)``.

        Returns:
            ~chainer.Variable: Output of shape
            ``(n, in_channels * channel_multiplier, h_O, w_O)``.
        """
        if self.W.array is None:
            if x.ndim != 4:
                raise ValueError(
                    "DepthwiseConvolution2D: expected an input of shape "
                    f"(n, c, h, w), got shape {x.shape}"
                )
            self._initialize_params(x.shape[1])
        return depthwise_convolution_2d.depthwise_convolution_2d(
            x, self.W, self.b, self.stride, self.pad
        )
