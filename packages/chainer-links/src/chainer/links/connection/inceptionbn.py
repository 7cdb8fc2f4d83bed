import chainer
from chainer import link
from chainer.functions.activation import relu
from chainer.functions.array import concat
from chainer.functions.pooling import average_pooling_2d
from chainer.functions.pooling import max_pooling_2d
from chainer.links.connection import convolution_2d
from chainer.links.normalization import batch_normalization


# Chainer raises these two kinds; ours are ValueErrors that old code catching
# Chainer's exceptions still catches.
class _UnknownPoolType(ValueError, NotImplementedError):
    pass


class _InvalidArchitecture(ValueError, AssertionError):
    pass


class InceptionBN(link.Chain):
    """Inception module of the new GoogLeNet with BatchNormalization.

    This chain acts like :class:`~chainer.links.Inception`, while
    InceptionBN uses :class:`~chainer.links.BatchNormalization` on top of
    each convolution (whose bias is omitted), the 5x5 convolution path is
    replaced by two consecutive 3x3 convolutions, and the pooling method is
    configurable (Ioffe and Szegedy, *Batch Normalization: Accelerating Deep
    Network Training by Reducing Internal Covariate Shift*, 2015).

    With ``stride > 1`` the module reduces the spatial size; then the 1x1
    path must be absent (``out1 == 0``) and the pooling output is passed
    through as it is when ``proj_pool`` is ``None``.

    Args:
        in_channels (int or None): Number of channels of input arrays
            (``None``: inferred at the first forward pass).
        out1 (int): Output size of the 1x1 convolution path; 0 omits the
            path.
        proj3 (int): Projection size of the single 3x3 convolution path.
        out3 (int): Output size of the single 3x3 convolution path.
        proj33 (int): Projection size of the double 3x3 convolutions path.
        out33 (int): Output size of the double 3x3 convolutions path.
        pooltype (str): Pooling type: ``'max'`` or ``'avg'``.
        proj_pool (int or None): Projection size of the pooling path; if
            ``None``, the pooling output is not projected.
        stride (int): Stride of the 3x3 convolutions and of the pooling.
        conv_init (:ref:`initializer <initializer>`): Initializer of the
            convolution weights (``None``: default initialization).
        dtype (numpy.dtype): Type of the batch normalization parameters and
            statistics (``None``: the default dtype).

    Raises:
        ValueError: For an unknown ``pooltype`` (also a
            ``NotImplementedError``, which Chainer raises), or a 1x1 path
            (``out1 > 0``) with ``stride != 1`` or without ``proj_pool``
            (also an ``AssertionError``, which Chainer raises).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> link = L.InceptionBN(3, 2, 2, 3, 2, 4, 'max', proj_pool=5)
        >>> link(np.ones((2, 3, 6, 6), np.float32)).shape
        (2, 14, 6, 6)
        >>> link = L.InceptionBN(3, 0, 2, 3, 2, 4, 'avg', stride=2)
        >>> link(np.ones((2, 3, 6, 6), np.float32)).shape
        (2, 10, 3, 3)
    """

    def __init__(
        self,
        in_channels,
        out1,
        proj3,
        out3,
        proj33,
        out33,
        pooltype,
        proj_pool=None,
        stride=1,
        conv_init=None,
        dtype=None,
    ):
        super().__init__()
        if pooltype not in ("max", "avg"):
            raise _UnknownPoolType(f"pooltype must be 'max' or 'avg', got {pooltype!r}")
        if out1 > 0 and (stride != 1 or proj_pool is None):
            raise _InvalidArchitecture(
                "the 1x1 path (out1 > 0) needs stride == 1 and proj_pool; got "
                f"stride={stride}, proj_pool={proj_pool}"
            )
        self.out1 = out1
        self.proj_pool = proj_pool
        self.stride = stride
        self.pooltype = pooltype
        dtype = chainer.get_dtype(dtype)

        def conv(n_in, n_out, ksize, stride=1, pad=0):
            return convolution_2d.Convolution2D(
                n_in, n_out, ksize, stride, pad, nobias=True, initialW=conv_init
            )

        def bn(size):
            return batch_normalization.BatchNormalization(size, dtype=dtype)

        with self.init_scope():
            self.proj3 = conv(in_channels, proj3, 1)
            self.conv3 = conv(proj3, out3, 3, stride, 1)
            self.proj33 = conv(in_channels, proj33, 1)
            self.conv33a = conv(proj33, out33, 3, 1, 1)
            self.conv33b = conv(out33, out33, 3, stride, 1)
            self.proj3n = bn(proj3)
            self.conv3n = bn(out3)
            self.proj33n = bn(proj33)
            self.conv33an = bn(out33)
            self.conv33bn = bn(out33)
            if out1 > 0:
                self.conv1 = conv(in_channels, out1, 1, stride)
                self.conv1n = bn(out1)
            if proj_pool is not None:
                self.poolp = conv(in_channels, proj_pool, 1)
                self.poolpn = bn(proj_pool)

    def forward(self, x):
        """Computes the output of the InceptionBN module.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input image of shape
                ``(n, in_channels, h, w)``.

        Returns:
            ~chainer.Variable: Output of shape ``(n, out1 + out3 + out33 +
            p, h_O, w_O)``, where ``p`` is ``proj_pool`` (``in_channels``
            if it is ``None``) and ``h_O = (h - 1) // stride + 1``.
        """
        outs = []
        if self.out1 > 0:
            outs.append(relu.relu(self.conv1n(self.conv1(x))))
        h3 = relu.relu(self.proj3n(self.proj3(x)))
        outs.append(relu.relu(self.conv3n(self.conv3(h3))))
        h33 = relu.relu(self.proj33n(self.proj33(x)))
        h33 = relu.relu(self.conv33an(self.conv33a(h33)))
        outs.append(relu.relu(self.conv33bn(self.conv33b(h33))))
        if self.pooltype == "max":
            p = max_pooling_2d.max_pooling_2d(
                x, 3, stride=self.stride, pad=1, cover_all=False
            )
        else:
            p = average_pooling_2d.average_pooling_2d(x, 3, stride=self.stride, pad=1)
        if self.proj_pool is not None:
            p = relu.relu(self.poolpn(self.poolp(p)))
        outs.append(p)
        return concat.concat(outs, axis=1)
