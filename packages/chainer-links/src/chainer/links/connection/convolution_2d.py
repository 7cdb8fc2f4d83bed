from chainer import variable
from chainer.functions.connection import convolution_2d
from chainer.links.connection import convolution_nd
from chainer.utils import conv


class Convolution2D(convolution_nd.ConvolutionND):
    """Two-dimensional convolutional layer.

    Holds filters ``W`` of shape ``(out_channels, in_channels / groups, k_H,
    k_W)`` and a bias ``b`` and applies
    :func:`~chainer.functions.convolution_2d`. ``Convolution2D(out_channels,
    ksize)`` (and ``in_channels=None``) defers the input channels to the
    first call.

    Args:
        in_channels (int or None): Number of input channels (None: inferred
            from the first input).
        out_channels (int): Number of output channels.
        ksize (int or pair of ints): Filter size ``(k_H, k_W)``.
        stride (int or pair of ints): Stride ``(s_Y, s_X)``.
        pad (int or pair of ints): Zero padding ``(p_H, p_W)``.
        nobias (bool): If ``True``, the layer has no bias.
        initialW (:ref:`initializer`): Initializer (or scalar or array) of
            the filters; None means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias (:ref:`initializer`): Initializer (or scalar or array)
            of the bias; None means zero.
        **kwargs: ``dilate`` (int or pair of ints, default 1) and ``groups``
            (int, default 1).

    Attributes:
        W (~chainer.Parameter): Filters.
        b (~chainer.Parameter): Bias (None with ``nobias``).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> conv = L.Convolution2D(None, 4, 3, pad=1)
        >>> conv(np.zeros((2, 3, 8, 8), np.float32)).shape
        (2, 4, 8, 8)
        >>> conv.W.shape
        (4, 3, 3, 3)
        >>> L.Convolution2D(4, 3).W.array is None  # short form, lazy
        True
    """

    def __init__(
        self, in_channels, out_channels, ksize=None, stride=1, pad=0,
        nobias=False, initialW=None, initial_bias=None, **kwargs,
    ):  # fmt: skip
        dilate, groups = conv.parse_dilate_groups(kwargs, type(self).__name__)
        super().__init__(
            2, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
            initial_bias, False, dilate, groups,
        )  # fmt: skip

    @classmethod
    def from_params(cls, W, b=None, stride=1, pad=0, nobias=False, **kwargs):
        """Builds a layer from existing filter (and bias) arrays.

        Args:
            W (:ref:`ndarray` or ~chainer.Variable): Filters of shape
                ``(out_channels, in_channels / groups, k_H, k_W)``.
            b (:ref:`ndarray` or ~chainer.Variable): Optional bias.
            stride (int or pair of ints): Stride.
            pad (int or pair of ints): Padding.
            nobias (bool): If ``True``, no bias (``b`` must be None).
            **kwargs: ``dilate`` and ``groups``.

        Returns:
            Convolution2D: The new link.
        """
        if nobias and b is not None:
            raise ValueError("b must be None when nobias is True")
        _, groups = conv.parse_dilate_groups(kwargs, cls.__name__)
        out_channels, in_per_group, kh, kw = W.shape
        return cls(
            in_per_group * groups,
            out_channels,
            (kh, kw),
            stride,
            pad,
            nobias,
            initialW=variable.as_array(W),
            initial_bias=None if b is None else variable.as_array(b),
            **kwargs,
        )

    def forward(self, x):
        """Applies the convolution.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input of shape
                ``(n, in_channels, h, w)``.

        Returns:
            ~chainer.Variable: Output of shape ``(n, out_channels, h_O, w_O)``.
        """
        self._check_input(x)
        return convolution_2d.convolution_2d(
            x, self.W, self.b, self.stride, self.pad,
            dilate=self.dilate, groups=self.groups,
        )  # fmt: skip
