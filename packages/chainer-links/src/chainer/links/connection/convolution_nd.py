from chainer.functions.connection import convolution_nd
from chainer.links.connection import _conv_base


class ConvolutionND(_conv_base.ConvolutionNDBase):
    """N-dimensional convolution layer.

    Holds filters ``W`` of shape ``(out_channels, in_channels / groups,
    k_1, ..., k_N)`` and a bias ``b`` and applies
    :func:`~chainer.functions.convolution_nd`.

    Args:
        ndim (int): Number of spatial dimensions.
        in_channels (int or None): Number of input channels. If None (or
            with the short form ``ConvolutionND(ndim, out_channels, ksize)``),
            it is inferred from the first input.
        out_channels (int): Number of output channels.
        ksize (int or tuple of ints): Filter size per spatial axis.
        stride (int or tuple of ints): Stride per spatial axis.
        pad (int or tuple of ints): Zero padding per spatial axis.
        nobias (bool): If ``True``, the layer has no bias.
        initialW (:ref:`initializer`): Initializer (or scalar or array) of
            the filters; None means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias (:ref:`initializer`): Initializer (or scalar or array)
            of the bias; None means zero.
        cover_all (bool): If ``True``, all spatial locations are convolved
            into some output pixels.
        dilate (int or tuple of ints): Dilation factor per spatial axis.
        groups (int): Number of channel groups; it must divide both channel
            counts.

    Attributes:
        W (~chainer.Parameter): Filters.
        b (~chainer.Parameter): Bias (None with ``nobias``).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> layer = L.ConvolutionND(3, 4, 3, pad=1)
        >>> layer(np.zeros((1, 2, 5, 5, 5), np.float32)).shape
        (1, 4, 5, 5, 5)
    """

    def __init__(
        self, ndim, in_channels, out_channels, ksize=None, stride=1, pad=0,
        nobias=False, initialW=None, initial_bias=None, cover_all=False,
        dilate=1, groups=1,
    ):  # fmt: skip
        super().__init__(
            ndim, in_channels, out_channels, ksize, stride, pad, nobias,
            initialW, initial_bias, dilate, groups,
        )  # fmt: skip
        self.cover_all = cover_all

    def _filter_shape(self, in_channels):
        return (self.out_channels, in_channels // self.groups, *self.ksize)

    def forward(self, x):
        """Applies the convolution.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input of shape
                ``(n, in_channels, d_1, ..., d_N)``.

        Returns:
            ~chainer.Variable: Output of shape ``(n, out_channels, ...)``.
        """
        self._check_input(x)
        return convolution_nd.convolution_nd(
            x, self.W, self.b, self.stride, self.pad, self.cover_all,
            self.dilate, self.groups,
        )  # fmt: skip


class Convolution1D(ConvolutionND):
    """1-dimensional convolution layer (:class:`ConvolutionND` with ``ndim=1``).

    Args:
        in_channels (int or None): Number of input channels (None: lazy).
        out_channels (int): Number of output channels.
        ksize (int or tuple of ints): Filter size.
        stride (int or tuple of ints): Stride.
        pad (int or tuple of ints): Zero padding.
        nobias (bool): If ``True``, the layer has no bias.
        initialW (:ref:`initializer`): Filter initializer (LeCunNormal).
        initial_bias (:ref:`initializer`): Bias initializer (zero).
        cover_all (bool): See :func:`~chainer.functions.convolution_nd`.
        dilate (int or tuple of ints): Dilation factor.
        groups (int): Number of channel groups.
    """

    def __init__(
        self, in_channels, out_channels, ksize, stride=1, pad=0, nobias=False,
        initialW=None, initial_bias=None, cover_all=False, dilate=1, groups=1,
    ):  # fmt: skip
        super().__init__(
            1, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
            initial_bias, cover_all, dilate, groups,
        )  # fmt: skip


class Convolution3D(ConvolutionND):
    """3-dimensional convolution layer (:class:`ConvolutionND` with ``ndim=3``).

    Args:
        in_channels (int or None): Number of input channels (None: lazy).
        out_channels (int): Number of output channels.
        ksize (int or tuple of ints): Filter size.
        stride (int or tuple of ints): Stride.
        pad (int or tuple of ints): Zero padding.
        nobias (bool): If ``True``, the layer has no bias.
        initialW (:ref:`initializer`): Filter initializer (LeCunNormal).
        initial_bias (:ref:`initializer`): Bias initializer (zero).
        cover_all (bool): See :func:`~chainer.functions.convolution_nd`.
        dilate (int or tuple of ints): Dilation factor.
        groups (int): Number of channel groups.
    """

    def __init__(
        self, in_channels, out_channels, ksize, stride=1, pad=0, nobias=False,
        initialW=None, initial_bias=None, cover_all=False, dilate=1, groups=1,
    ):  # fmt: skip
        super().__init__(
            3, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
            initial_bias, cover_all, dilate, groups,
        )  # fmt: skip
