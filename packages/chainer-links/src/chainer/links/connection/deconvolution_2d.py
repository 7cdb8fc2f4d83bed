from chainer.functions.connection import deconvolution_2d
from chainer.links.connection import deconvolution_nd
from chainer.utils import conv


class Deconvolution2D(deconvolution_nd.DeconvolutionND):
    """Two-dimensional deconvolution (transposed convolution) layer.

    Holds filters ``W`` of shape ``(in_channels, out_channels / groups, k_H,
    k_W)`` and a bias ``b`` and applies
    :func:`~chainer.functions.deconvolution_2d`. ``Deconvolution2D(
    out_channels, ksize)`` (and ``in_channels=None``) defers the input
    channels to the first call.

    Args:
        in_channels (int or None): Number of input channels (None: lazy).
        out_channels (int): Number of output channels.
        ksize (int or pair of ints): Filter size ``(k_H, k_W)``.
        stride (int or pair of ints): Stride ``(s_Y, s_X)``.
        pad (int or pair of ints): Padding ``(p_H, p_W)``.
        nobias (bool): If ``True``, the layer has no bias.
        outsize (None or pair of ints): Output size ``(h_O, w_O)``
            (estimated from the input when None).
        initialW (:ref:`initializer`): Initializer (or scalar or array) of
            the filters; None means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias (:ref:`initializer`): Initializer (or scalar or array)
            of the bias; None means zero.
        **kwargs: ``dilate`` (int or pair of ints, default 1) and ``groups``
            (int, default 1).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> layer = L.Deconvolution2D(3, 2, 4, stride=2, pad=1)
        >>> layer(np.zeros((1, 3, 5, 5), np.float32)).shape
        (1, 2, 10, 10)
    """

    def __init__(
        self, in_channels, out_channels, ksize=None, stride=1, pad=0,
        nobias=False, outsize=None, initialW=None, initial_bias=None, **kwargs,
    ):  # fmt: skip
        dilate, groups = conv.parse_dilate_groups(kwargs, type(self).__name__)
        super().__init__(
            2, in_channels, out_channels, ksize, stride, pad, nobias, outsize,
            initialW, initial_bias, dilate, groups,
        )  # fmt: skip

    def forward(self, x):
        """Applies the deconvolution.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input of shape
                ``(n, in_channels, h, w)``.

        Returns:
            ~chainer.Variable: Output of shape ``(n, out_channels, h_O, w_O)``.
        """
        self._check_input(x)
        return deconvolution_2d.deconvolution_2d(
            x, self.W, self.b, self.stride, self.pad, self.outsize,
            dilate=self.dilate, groups=self.groups,
        )  # fmt: skip
