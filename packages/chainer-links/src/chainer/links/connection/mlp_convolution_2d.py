import itertools

from chainer import link
from chainer.functions.activation import relu
from chainer.links.connection import convolution_2d

_WSCALE_MESSAGE = (
    "wscale is not supported anymore. Use conv_init and bias_init argument "
    "to change the scale of initial parameters."
)


class MLPConvolution2D(link.ChainList):
    """Two-dimensional MLP convolution layer of Network in Network.

    This is an "mlpconv" layer from the Network in Network paper (Lin et
    al., 2014). It consists of a convolution layer followed by 1x1
    convolution layers, with ``activation`` between consecutive ones.

    The calls ``MLPConvolution2D(in_channels, out_channels, ksize, ...)``
    and ``MLPConvolution2D(out_channels, ksize, ...)`` (input channels
    inferred at the first forward pass) are both accepted.

    Args:
        in_channels (int or None): Number of channels of input arrays. If
            ``None``, parameter initialization is deferred to the first
            forward pass.
        out_channels (tuple of ints): Tuple of the numbers of output
            channels; its length is the number of convolution layers.
        ksize (int or pair of ints): Size of the filters of the first
            convolution layer. ``ksize=k`` and ``ksize=(k, k)`` are
            equivalent.
        stride (int or pair of ints): Stride of the first convolution layer.
        pad (int or pair of ints): Spatial padding of the first convolution
            layer.
        activation (callable): Activation function applied between the
            convolution layers (not after the last one).
        conv_init (:ref:`initializer <initializer>`): Keyword only:
            initializer of the convolution weights (``None``: default).
        bias_init (:ref:`initializer <initializer>`): Keyword only:
            initializer of the convolution biases (``None``: default).

    Raises:
        TypeError: For extra positional arguments or the old ``wscale``.
        ValueError: If ``out_channels`` is empty.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> link = L.MLPConvolution2D(3, (8, 4, 2), 3, pad=1)
        >>> len(link)
        3
        >>> link(np.zeros((1, 3, 5, 5), np.float32)).shape
        (1, 2, 5, 5)
    """

    def __init__(
        self,
        in_channels,
        out_channels,
        ksize=None,
        stride=1,
        pad=0,
        activation=relu.relu,
        *args,
        **kwargs,
    ):
        # Extra positional arguments mean the v1 API, where the next one was
        # wscale.
        if args or "wscale" in kwargs:
            raise TypeError(_WSCALE_MESSAGE)
        conv_init = kwargs.pop("conv_init", None)
        bias_init = kwargs.pop("bias_init", None)
        if kwargs:
            raise TypeError(f"unexpected keyword arguments: {sorted(kwargs)}")
        if ksize is None:
            out_channels, ksize, in_channels = in_channels, out_channels, None
        out_channels = tuple(out_channels)
        if not out_channels:
            raise ValueError("out_channels must name at least one layer")
        convs = [
            convolution_2d.Convolution2D(
                in_channels,
                out_channels[0],
                ksize,
                stride,
                pad,
                initialW=conv_init,
                initial_bias=bias_init,
            )
        ]
        for n_in, n_out in itertools.pairwise(out_channels):
            convs.append(
                convolution_2d.Convolution2D(
                    n_in, n_out, 1, initialW=conv_init, initial_bias=bias_init
                )
            )
        super().__init__(*convs)
        self.activation = activation

    def forward(self, x):
        """Computes the output of the mlpconv layer.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input image of shape
                ``(n, c_I, h, w)``.

        Returns:
            ~chainer.Variable: Output of shape ``(n, out_channels[-1], h_O,
            w_O)``.
        """
        f = self.activation
        for layer in self[:-1]:
            x = f(layer(x))
        return self[-1](x)
