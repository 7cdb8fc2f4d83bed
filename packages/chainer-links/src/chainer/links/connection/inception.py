from chainer import link
from chainer.functions.activation import relu
from chainer.functions.array import concat
from chainer.functions.pooling import max_pooling_2d
from chainer.links.connection import convolution_2d


class Inception(link.Chain):
    """Inception module of GoogLeNet.

    It applies four different functions to the input array and concatenates
    their outputs along the channel dimension. Three of them are 2D
    convolutions of sizes 1x1, 3x3 and 5x5. The convolution paths of 3x3 and
    5x5 sizes have 1x1 convolutions (called projections) ahead of them. The
    other path consists of 3x3 max pooling followed by a 1x1 convolution
    (projection). ReLU follows the projections and the concatenated output.

    The output array has the same spatial size as the input: each
    convolution and the pooling are padded accordingly. See Szegedy et al.,
    *Going Deeper with Convolutions* (2014).

    Args:
        in_channels (int or None): Number of channels of input arrays
            (``None``: inferred at the first forward pass).
        out1 (int): Output size of the 1x1 convolution path.
        proj3 (int): Projection size of the 3x3 convolution path.
        out3 (int): Output size of the 3x3 convolution path.
        proj5 (int): Projection size of the 5x5 convolution path.
        out5 (int): Output size of the 5x5 convolution path.
        proj_pool (int): Projection size of the max pooling path.
        conv_init (:ref:`initializer <initializer>`): Initializer of the
            convolution weights (``None``: default initialization).
        bias_init (:ref:`initializer <initializer>`): Initializer of the
            convolution biases (``None``: default initialization).

    Attributes:
        conv1, proj3, conv3, proj5, conv5, projp (~chainer.links.Convolution2D):
            The convolutions of the four paths.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> link = L.Inception(3, 2, 2, 3, 2, 4, 5)
        >>> link(np.zeros((1, 3, 6, 6), np.float32)).shape
        (1, 14, 6, 6)
    """

    def __init__(
        self,
        in_channels,
        out1,
        proj3,
        out3,
        proj5,
        out5,
        proj_pool,
        conv_init=None,
        bias_init=None,
    ):
        super().__init__()

        def conv(n_in, n_out, ksize, pad=0):
            return convolution_2d.Convolution2D(
                n_in, n_out, ksize, pad=pad, initialW=conv_init, initial_bias=bias_init
            )

        with self.init_scope():
            self.conv1 = conv(in_channels, out1, 1)
            self.proj3 = conv(in_channels, proj3, 1)
            self.conv3 = conv(proj3, out3, 3, pad=1)
            self.proj5 = conv(in_channels, proj5, 1)
            self.conv5 = conv(proj5, out5, 5, pad=2)
            self.projp = conv(in_channels, proj_pool, 1)

    def forward(self, x):
        """Computes the output of the Inception module.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input image of shape
                ``(n, in_channels, h, w)``.

        Returns:
            ~chainer.Variable: Output of shape ``(n, out1 + out3 + out5 +
            proj_pool, h, w)``.
        """
        out1 = self.conv1(x)
        out3 = self.conv3(relu.relu(self.proj3(x)))
        out5 = self.conv5(relu.relu(self.proj5(x)))
        pool = self.projp(max_pooling_2d.max_pooling_2d(x, 3, stride=1, pad=1))
        return relu.relu(concat.concat((out1, out3, out5, pool), axis=1))
