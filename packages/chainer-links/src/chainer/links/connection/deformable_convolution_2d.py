from chainer import initializers
from chainer import link
from chainer import variable
from chainer.functions.connection import deformable_convolution_2d_sampler
from chainer.links.connection import convolution_2d
from chainer.utils import conv


class DeformableConvolution2D(link.Chain):
    """Two-dimensional deformable convolutional layer.

    This link wraps a convolution layer (``offset_conv``) that computes the
    offsets of the filter taps from the input and a
    :class:`DeformableConvolution2DSampler` (``deform_conv``) that applies
    :func:`~chainer.functions.deformable_convolution_2d_sampler` with those
    offsets (Dai et al., *Deformable Convolutional Networks*, 2017).

    Args:
        in_channels (int or None): Number of channels of input arrays
            (``None``: inferred at the first forward pass).
        out_channels (int): Number of channels of output arrays.
        ksize (int or pair of ints): Size of filters (a.k.a. kernels).
            ``ksize=k`` and ``ksize=(k, k)`` are equivalent.
        stride (int or pair of ints): Stride of filter applications.
            ``stride=s`` and ``stride=(s, s)`` are equivalent.
        pad (int or pair of ints): Spatial padding width for input arrays.
            ``pad=p`` and ``pad=(p, p)`` are equivalent.
        offset_nobias (bool): If ``True``, the offset convolution does not
            use the bias term.
        offset_initialW (:ref:`initializer <initializer>`): Initializer of
            the weight of the offset convolution (4-d when an array).
        offset_initial_bias (:ref:`initializer <initializer>`): Initializer
            of the bias of the offset convolution (zero if ``None``).
        deform_nobias (bool): If ``True``, the deformable convolution does
            not use the bias term.
        deform_initialW (:ref:`initializer <initializer>`): Initializer of
            the weight of the deformable convolution (4-d when an array;
            zero if ``None``, as in Chainer).
        deform_initial_bias (:ref:`initializer <initializer>`): Initializer
            of the bias of the deformable convolution (zero if ``None``).

    Attributes:
        offset_conv (~chainer.links.Convolution2D): Computes the offsets,
            ``2 * kh * kw`` channels.
        deform_conv (DeformableConvolution2DSampler): The deformable
            convolution.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> link = L.DeformableConvolution2D(3, 4, 3, pad=1)
        >>> link(np.zeros((1, 3, 5, 5), np.float32)).shape
        (1, 4, 5, 5)
    """

    def __init__(
        self,
        in_channels,
        out_channels,
        ksize,
        stride=1,
        pad=0,
        offset_nobias=False,
        offset_initialW=None,
        offset_initial_bias=None,
        deform_nobias=False,
        deform_initialW=None,
        deform_initial_bias=None,
    ):
        super().__init__()
        kh, kw = conv.as_tuple(ksize, 2, "ksize")
        with self.init_scope():
            self.offset_conv = convolution_2d.Convolution2D(
                in_channels,
                2 * kh * kw,
                ksize,
                stride,
                pad,
                offset_nobias,
                offset_initialW,
                offset_initial_bias,
            )
            self.deform_conv = DeformableConvolution2DSampler(
                in_channels,
                out_channels,
                ksize,
                stride,
                pad,
                deform_nobias,
                deform_initialW,
                deform_initial_bias,
            )

    def forward(self, x):
        """Applies the deformable convolution.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input image of shape
                ``(n, in_channels, h, w)``.

        Returns:
            ~chainer.Variable: Output of shape ``(n, out_channels, h_O,
            w_O)``.
        """
        offset = self.offset_conv(x)
        return self.deform_conv(x, offset)


class DeformableConvolution2DSampler(link.Link):
    """Applies a two-dimensional deformable convolution with given offsets.

    The link holds the filter weight ``W`` of shape ``(out_channels,
    in_channels, kh, kw)`` and the bias ``b`` and calls
    :func:`~chainer.functions.deformable_convolution_2d_sampler`.

    Args:
        in_channels (int or None): Number of channels of input arrays
            (``None``: inferred at the first forward pass).
        out_channels (int): Number of channels of output arrays.
        ksize (int or pair of ints): Size of filters.
        stride (int or pair of ints): Stride of filter applications.
        pad (int or pair of ints): Spatial padding width for input arrays.
        nobias (bool): If ``True``, no bias term.
        initialW (:ref:`initializer <initializer>`): Initializer of ``W``
            (``None``: zero, as in Chainer).
        initial_bias (:ref:`initializer <initializer>`): Initializer of
            ``b`` (``None``: zero).

    Attributes:
        W (~chainer.Parameter): Weight parameter.
        b (~chainer.Parameter): Bias parameter (``None`` with ``nobias``).
    """

    def __init__(
        self,
        in_channels,
        out_channels,
        ksize,
        stride=1,
        pad=0,
        nobias=False,
        initialW=None,
        initial_bias=None,
    ):
        super().__init__()
        self.ksize = conv.as_tuple(ksize, 2, "ksize")
        self.stride = conv.as_tuple(stride, 2, "stride")
        self.pad = conv.as_tuple(pad, 2, "pad")
        self.out_channels = out_channels
        with self.init_scope():
            if initialW is None:
                # NOTE: Chainer's default: the layer starts from zero output
                # (bias aside) and learns W from the sampled inputs.
                initialW = initializers.Zero()
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
        self.W.initialize((self.out_channels, in_channels, *self.ksize))
        if self.b is not None:
            self.b.initialize((self.out_channels,))

    def forward(self, x, offset):
        """Applies the deformable convolution with the given offsets.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input image of shape
                ``(n, in_channels, h, w)``.
            offset (~chainer.Variable or :ref:`ndarray`): Offsets of shape
                ``(n, 2 * kh * kw, h_O, w_O)``.

        Returns:
            ~chainer.Variable: Output of shape ``(n, out_channels, h_O,
            w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return deformable_convolution_2d_sampler.deformable_convolution_2d_sampler(
            x, offset, self.W, self.b, self.stride, self.pad
        )
