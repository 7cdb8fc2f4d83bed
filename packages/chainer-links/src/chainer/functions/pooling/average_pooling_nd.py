from chainer import backend
from chainer import function_node
from chainer.functions.pooling import _util
from chainer.functions.pooling import pooling_nd
from chainer.utils import conv


class AveragePoolingND(pooling_nd.PoolingND):
    """Average pooling over the spatial axes of ``(n, c, *spatial)``."""

    def __init__(self, ndim, ksize, stride=None, pad=0, cover_all=False, pad_value=0):
        if not (pad_value is None or pad_value == 0):
            raise ValueError(f"pad_value must be either 0 or None, not {pad_value}.")
        super().__init__(ndim, ksize, stride, pad, cover_all)
        #: 0 (padding averaged in as zeros) or None (padding left out).
        self.pad_value = pad_value

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self._setup(x.shape[2:])
        x = conv.pad_spatial(x, self.pad, self._pad_hi, 0)
        y = pooling_nd.reduce_windows(
            x, self.ksize, self.stride, self._out_size, xp.add
        )
        y /= self.divisor(xp, y.dtype)
        return (y,)

    def divisor(self, xp, dtype):
        """What each window's sum is divided by, for the geometry set up last.

        The window size, or with ``pad_value=None`` the number of the
        window's elements inside the input (an array broadcasting to
        ``out_size``, an outer product of per-axis counts).

        Args:
            xp (module): Array module of the result.
            dtype: Dtype of an array result.

        Returns:
            int or :ref:`ndarray`: The divisor.
        """
        if self.pad_value is not None:
            k = 1
            for k_i in self.ksize:
                k *= k_i
            return k
        div = None
        nd = self.ndim
        for i, (size, k, s, p, o) in enumerate(
            zip(
                self._in_size,
                self.ksize,
                self.stride,
                self.pad,
                self._out_size,
                strict=True,
            )
        ):
            start = xp.arange(o) * s - p
            count = xp.minimum(start + k, size) - xp.maximum(start, 0)
            # NOTE: a window lying wholly in the padding averages nothing; it
            # gets 0 instead of 0 / 0.
            count = xp.maximum(count, 1).reshape((o,) + (1,) * (nd - 1 - i))
            div = count if div is None else div * count
        return div.astype(dtype)

    def backward(self, indexes, grad_outputs):
        return AveragePoolingNDGrad(self).apply(grad_outputs)


class AveragePoolingNDGrad(function_node.FunctionNode):
    """Spreads each output gradient evenly over its window."""

    def __init__(self, apool):
        self._apool = apool

    @property
    def apool(self):
        """The :class:`AveragePoolingND` node whose gradient this node computes."""
        return self._apool

    def forward(self, inputs):
        (gy,) = inputs
        p = self._apool
        xp = backend.get_array_module(gy)
        g = gy / p.divisor(xp, gy.dtype)
        buf = pooling_nd.spread_windows(
            g, p._tap_slices(), p._padded_shape(gy.shape[:2]), p._disjoint
        )
        return (pooling_nd.crop(buf, p.pad, p._in_size),)

    def backward(self, indexes, grad_outputs):
        p = self._apool
        return AveragePoolingND(
            p.ndim, p.ksize, p.stride, p.pad, p.cover_all, p.pad_value
        ).apply(grad_outputs)


def average_pooling_nd(x, ksize, stride=None, pad=0, pad_value=0):
    """N-dimensionally spatial average pooling function.

    The N-dimensional generalization of :func:`average_pooling_2d`: each
    window of each channel is reduced to its mean, like
    :class:`~chainer.links.ConvolutionND` without parameters. Windows do not
    cover all input locations (no ``cover_all`` mode).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, d_1, ..., d_N)``.
        ksize (int or tuple of ints): Window size; ``k`` means ``(k, ..., k)``.
        stride (int or tuple of ints or None): Stride of window applications;
            ``None`` uses ``ksize``.
        pad (int or tuple of ints): Spatial padding on both sides.
        pad_value (0 or None): Value of the padded region. ``0`` averages
            padded zeros into the windows (biasing them towards zero); ``None``
            leaves the padding out, dividing by the number of input elements
            of each window.

    Returns:
        ~chainer.Variable: Output of shape ``(n, c, o_1, ..., o_N)``, with
        ``o_i = (d_i + 2 p_i - k_i) // s_i + 1``, same dtype as ``x``.

    Raises:
        ValueError: If ``pad_value`` is neither 0 nor None.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.ones((1, 1, 2, 2), np.float32)
        >>> F.average_pooling_nd(x, 2, stride=1, pad=1).array[0, 0]
        array([[0.25, 0.5 , 0.25],
               [0.5 , 1.  , 0.5 ],
               [0.25, 0.5 , 0.25]], dtype=float32)
        >>> F.average_pooling_nd(x, 2, stride=1, pad=1, pad_value=None).array[0, 0]
        array([[1., 1., 1.],
               [1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """
    ndim = len(x.shape[2:])
    func = AveragePoolingND(ndim, ksize, stride, pad, False, pad_value)
    (y,) = func.apply((x,))
    return y


def average_pooling_1d(x, ksize, stride=None, pad=0, pad_value=0):
    """1-dimensional spatial average pooling function.

    :func:`average_pooling_nd` for inputs of shape ``(n, c, w)``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array ``(n, c, w)``.
        ksize (int or tuple of ints): Window size.
        stride (int or tuple of ints or None): Stride; ``None`` uses ``ksize``.
        pad (int or tuple of ints): Spatial padding.
        pad_value (0 or None): Padding value, or ``None`` to ignore padding.

    Returns:
        ~chainer.Variable: See :func:`average_pooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly one spatial axis.
    """
    _util.check_ndim(x, 1)
    return average_pooling_nd(x, ksize, stride, pad, pad_value)


def average_pooling_3d(x, ksize, stride=None, pad=0, pad_value=0):
    """3-dimensional spatial average pooling function.

    :func:`average_pooling_nd` for inputs of shape ``(n, c, d, h, w)``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array ``(n, c, d, h, w)``.
        ksize (int or tuple of ints): Window size.
        stride (int or tuple of ints or None): Stride; ``None`` uses ``ksize``.
        pad (int or tuple of ints): Spatial padding.
        pad_value (0 or None): Padding value, or ``None`` to ignore padding.

    Returns:
        ~chainer.Variable: See :func:`average_pooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly three spatial axes.
    """
    _util.check_ndim(x, 3)
    return average_pooling_nd(x, ksize, stride, pad, pad_value)
