from chainer import initializers
from chainer import link
from chainer import variable
from chainer.functions.connection import local_convolution_2d
from chainer.utils import conv


class LocalConvolution2D(link.Link):
    """Two-dimensional local convolutional layer.

    This link wraps the :func:`~chainer.functions.local_convolution_2d`
    function and holds the filter weight and bias array as parameters. Each
    output position has its own filter, so the parameters depend on the
    spatial size of the input; with ``in_channels`` or ``in_size`` left
    ``None`` they are created at the first forward pass, from the input.

    Args:
        in_channels (int or None): Number of channels of input arrays.
        out_channels (int): Number of channels of output arrays.
        in_size (int, pair of ints or None): Spatial size ``(h, w)`` of input
            arrays.
        ksize (int or pair of ints): Size of filters (a.k.a. kernels).
            ``ksize=k`` and ``ksize=(k, k)`` are equivalent.
        stride (int or pair of ints): Stride of filter applications.
            ``stride=s`` and ``stride=(s, s)`` are equivalent.
        nobias (bool): If ``True``, then this link does not use the bias
            term.
        initialW (:ref:`initializer <initializer>`): Initializer of the
            weight, of shape ``(out_channels, h_O, w_O, in_channels, kh,
            kw)``. If ``None``, LeCun normal.
        initial_bias (:ref:`initializer <initializer>`): Initializer of the
            bias, of shape ``(out_channels, h_O, w_O)``. If ``None``, zero.

    .. seealso:: :func:`~chainer.functions.local_convolution_2d`

    Attributes:
        W (~chainer.Parameter): Weight parameter.
        b (~chainer.Parameter): Bias parameter (``None`` with ``nobias``).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> link = L.LocalConvolution2D(3, 2, in_size=5, ksize=3)
        >>> link.W.shape
        (2, 3, 3, 3, 3, 3)
        >>> link(np.zeros((1, 3, 5, 5), np.float32)).shape
        (1, 2, 3, 3)
    """

    def __init__(
        self,
        in_channels,
        out_channels,
        in_size=None,
        ksize=None,
        stride=1,
        nobias=False,
        initialW=None,
        initial_bias=None,
        **kwargs,
    ):
        super().__init__()
        if kwargs:
            raise TypeError(f"unexpected keyword arguments: {sorted(kwargs)}")
        if ksize is None:
            raise TypeError("LocalConvolution2D needs ksize")
        self.ksize = ksize
        self.stride = conv.as_tuple(stride, 2, "stride")
        self.nobias = nobias
        self.out_channels = out_channels
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if nobias:
                self.b = None
            else:
                if initial_bias is None:
                    initial_bias = 0
                self.b = variable.Parameter(initializers._get_initializer(initial_bias))
        if in_channels is not None and in_size is not None:
            self._initialize_params(in_channels, conv.as_tuple(in_size, 2, "in_size"))

    def _initialize_params(self, in_channels, in_size):
        kh, kw = conv.as_tuple(self.ksize, 2, "ksize")
        sy, sx = self.stride
        out_h = conv.get_conv_outsize(in_size[0], kh, sy, 0)
        out_w = conv.get_conv_outsize(in_size[1], kw, sx, 0)
        if out_h <= 0 or out_w <= 0:
            raise ValueError(
                f"input size {tuple(in_size)} is smaller than the filter "
                f"size {(kh, kw)}"
            )
        self.W.initialize((self.out_channels, out_h, out_w, in_channels, kh, kw))
        if self.b is not None:
            self.b.initialize((self.out_channels, out_h, out_w))

    def forward(self, x):
        """Applies the local convolution layer.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input image of shape
                ``(n, in_channels, h, w)``.

        Returns:
            ~chainer.Variable: Output of shape ``(n, out_channels, h_O,
            w_O)``.
        """
        if self.W.array is None:
            if x.ndim != 4:
                raise ValueError(
                    f"LocalConvolution2D expects a 4-d input, got shape {x.shape}"
                )
            self._initialize_params(x.shape[1], x.shape[2:])
        return local_convolution_2d.local_convolution_2d(x, self.W, self.b, self.stride)
