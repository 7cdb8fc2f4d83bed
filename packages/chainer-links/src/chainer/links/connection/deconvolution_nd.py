from chainer.functions.connection import deconvolution_nd
from chainer.links.connection import _conv_base
from chainer.utils import conv


class DeconvolutionND(_conv_base.ConvolutionNDBase):
    """N-dimensional deconvolution (transposed convolution) layer.

    Holds filters ``W`` of shape ``(in_channels, out_channels / groups, k_1,
    ..., k_N)`` and a bias ``b`` and applies
    :func:`~chainer.functions.deconvolution_nd`.

    Args:
        ndim (int): Number of spatial dimensions.
        in_channels (int or None): Number of input channels. If None (or
            with the short form ``DeconvolutionND(ndim, out_channels,
            ksize)``), it is inferred from the first input.
        out_channels (int): Number of output channels.
        ksize (int or tuple of ints): Filter size per spatial axis.
        stride (int or tuple of ints): Stride per spatial axis.
        pad (int or tuple of ints): Padding per spatial axis.
        nobias (bool): If ``True``, the layer has no bias.
        outsize (None or tuple of ints): Output spatial size (estimated
            from the input when None).
        initialW (:ref:`initializer`): Initializer (or scalar or array) of
            the filters; None means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias (:ref:`initializer`): Initializer (or scalar or array)
            of the bias; None means zero.
        dilate (int or tuple of ints): Dilation factor per spatial axis.
        groups (int): Number of channel groups.

    Attributes:
        W (~chainer.Parameter): Filters.
        b (~chainer.Parameter): Bias (None with ``nobias``).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> layer = L.DeconvolutionND(3, 2, 4, 2, stride=2)
        >>> layer(np.zeros((1, 2, 3, 3, 3), np.float32)).shape
        (1, 4, 6, 6, 6)
    """

    _extra_specs = ("outsize",)

    def __init__(
        self, ndim, in_channels, out_channels, ksize=None, stride=1, pad=0,
        nobias=False, outsize=None, initialW=None, initial_bias=None, dilate=1,
        groups=1,
    ):  # fmt: skip
        super().__init__(
            ndim, in_channels, out_channels, ksize, stride, pad, nobias,
            initialW, initial_bias, dilate, groups,
        )  # fmt: skip
        self.outsize = None if outsize is None else conv.as_tuple(outsize, ndim)

    def _filter_shape(self, in_channels):
        return (in_channels, self.out_channels // self.groups, *self.ksize)

    def forward(self, x):
        """Applies the deconvolution.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input of shape
                ``(n, in_channels, d_1, ..., d_N)``.

        Returns:
            ~chainer.Variable: Output of shape ``(n, out_channels, ...)``.
        """
        self._check_input(x)
        return deconvolution_nd.deconvolution_nd(
            x, self.W, self.b, self.stride, self.pad, self.outsize,
            self.dilate, self.groups,
        )  # fmt: skip


class Deconvolution1D(DeconvolutionND):
    """1-dimensional deconvolution layer (:class:`DeconvolutionND`, ``ndim=1``).

    Args:
        in_channels (int or None): Number of input channels (None: lazy).
        out_channels (int): Number of output channels.
        ksize (int or tuple of ints): Filter size.
        stride (int or tuple of ints): Stride.
        pad (int or tuple of ints): Padding.
        nobias (bool): If ``True``, the layer has no bias.
        outsize (None or tuple of ints): Output size.
        initialW (:ref:`initializer`): Filter initializer (LeCunNormal).
        initial_bias (:ref:`initializer`): Bias initializer (zero).
        dilate (int or tuple of ints): Dilation factor.
        groups (int): Number of channel groups.
    """

    def __init__(
        self, in_channels, out_channels, ksize, stride=1, pad=0, nobias=False,
        outsize=None, initialW=None, initial_bias=None, dilate=1, groups=1,
    ):  # fmt: skip
        super().__init__(
            1, in_channels, out_channels, ksize, stride, pad, nobias, outsize,
            initialW, initial_bias, dilate, groups,
        )  # fmt: skip


class Deconvolution3D(DeconvolutionND):
    """3-dimensional deconvolution layer (:class:`DeconvolutionND`, ``ndim=3``).

    Args:
        in_channels (int or None): Number of input channels (None: lazy).
        out_channels (int): Number of output channels.
        ksize (int or tuple of ints): Filter size.
        stride (int or tuple of ints): Stride.
        pad (int or tuple of ints): Padding.
        nobias (bool): If ``True``, the layer has no bias.
        outsize (None or tuple of ints): Output size.
        initialW (:ref:`initializer`): Filter initializer (LeCunNormal).
        initial_bias (:ref:`initializer`): Bias initializer (zero).
        dilate (int or tuple of ints): Dilation factor.
        groups (int): Number of channel groups.
    """

    def __init__(
        self, in_channels, out_channels, ksize, stride=1, pad=0, nobias=False,
        outsize=None, initialW=None, initial_bias=None, dilate=1, groups=1,
    ):  # fmt: skip
        super().__init__(
            3, in_channels, out_channels, ksize, stride, pad, nobias, outsize,
            initialW, initial_bias, dilate, groups,
        )  # fmt: skip
