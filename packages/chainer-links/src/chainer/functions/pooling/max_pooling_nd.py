import numpy

from chainer import backend
from chainer import function_node
from chainer.functions.pooling import _util
from chainer.functions.pooling import pooling_nd
from chainer.utils import conv


class MaxPoolingND(pooling_nd.PoolingND):
    """Max pooling over the spatial axes of ``(n, c, *spatial)``.

    The argmax of each window is found only when needed (backward or
    ``indexes``) from the input and output kept by the forward pass, so
    inference pays for the maxima alone.
    """

    def __init__(
        self, ndim, ksize, stride=None, pad=0, cover_all=True, return_indices=False
    ):
        super().__init__(ndim, ksize, stride, pad, cover_all)
        self.return_indices = return_indices
        self._indexes = None
        self._x = None
        self._y = None

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self._setup(x.shape[2:])
        x = conv.pad_spatial(x, self.pad, self._pad_hi, -numpy.inf)
        y = pooling_nd.reduce_windows(
            x, self.ksize, self.stride, self._out_size, xp.maximum
        )
        self.keep_for_argmax(x, y)
        if self.return_indices:
            self._compact_indexes()
        return (y,)

    def keep_for_argmax(self, x, y):
        """Keeps what :meth:`compact_indexes` finds the argmax from on first use.

        The forward pass calls it, and so does a kernel override that
        computes the maxima but leaves the argmax for later.

        Args:
            x (:ref:`ndarray`): The input padded by ``pad`` before and
                :attr:`pad_hi` after each spatial axis with ``-inf``.
            y (:ref:`ndarray`): The window maxima ``(n, c, *out_size)``.
        """
        self._indexes = None
        self._x, self._y = x, y

    @property
    def indexes(self):
        """Window-local argmax of each output element (``int64``).

        The index counts kernel taps in C order over ``ksize``; the first
        maximum wins on ties. Available after the forward pass.
        """
        return self._compact_indexes().astype(numpy.int64)

    def compact_indexes(self):
        """Window-local argmax of each output element, in a compact int dtype.

        The same values as :attr:`indexes` (kernel taps in C order over
        ``ksize``), in the integer dtype they were found in; found on first
        use from what the forward pass kept, unless :meth:`set_indexes` gave
        them.
        """
        return self._compact_indexes()

    def set_indexes(self, indexes):
        """Keeps the window-local argmax that a kernel override computed.

        Args:
            indexes (:ref:`ndarray`): Integer array ``(n, c, *out_size)``
                counting kernel taps in C order over ``ksize`` (first maximum
                on ties). The input and output kept to find them are dropped.
        """
        self._indexes = indexes
        self._x = self._y = None

    def _compact_indexes(self):
        if self._indexes is None:
            if self._y is None:
                raise RuntimeError("indexes exist only after the forward pass")
            self._indexes = pooling_nd.window_argmax(
                self._x, self._y, self._tap_slices()
            )
            self._x = self._y = None
        return self._indexes

    def backward(self, indexes, grad_outputs):
        return MaxPoolingNDGrad(self).apply(grad_outputs)


class MaxPoolingNDGrad(function_node.FunctionNode):
    """Routes each output gradient to its window's argmax."""

    def __init__(self, mpool):
        self._mpool = mpool

    @property
    def mpool(self):
        """The :class:`MaxPoolingND` node whose argmax this node uses."""
        return self._mpool

    def forward(self, inputs):
        (gy,) = inputs
        p = self._mpool
        buf = pooling_nd.scatter_windows(
            gy,
            p._compact_indexes(),
            p._tap_slices(),
            p._padded_shape(gy.shape[:2]),
            p._disjoint,
        )
        return (pooling_nd.crop(buf, p.pad, p._in_size),)

    def backward(self, indexes, grad_outputs):
        return MaxPoolingNDWithIndexes(self._mpool).apply(grad_outputs)


class MaxPoolingNDWithIndexes(function_node.FunctionNode):
    """Picks each window's element at the argmax of the original pooling."""

    def __init__(self, mpool):
        self._mpool = mpool

    @property
    def mpool(self):
        """The :class:`MaxPoolingND` node whose argmax this node uses."""
        return self._mpool

    def forward(self, inputs):
        (x,) = inputs
        p = self._mpool
        x = conv.pad_spatial(x, p.pad, p._pad_hi, 0)
        return (pooling_nd.gather_windows(x, p._compact_indexes(), p._tap_slices()),)

    def backward(self, indexes, grad_outputs):
        return MaxPoolingNDGrad(self._mpool).apply(grad_outputs)


def max_pooling_nd(x, ksize, stride=None, pad=0, cover_all=True, return_indices=False):
    """N-dimensionally spatial max pooling function.

    The N-dimensional generalization of :func:`max_pooling_2d`: every window
    of each channel is reduced to its maximum, like
    :class:`~chainer.links.ConvolutionND` without parameters.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, d_1, ..., d_N)``.
        ksize (int or tuple of ints): Window size; ``k`` means ``(k, ..., k)``.
        stride (int or tuple of ints or None): Stride of window applications;
            ``None`` uses ``ksize`` (non-overlapping windows).
        pad (int or tuple of ints): Spatial padding on both sides; padded
            values never win the maximum.
        cover_all (bool): If ``True``, all spatial locations are pooled into
            some output pixels (the output may get larger).
        return_indices (bool): If ``True``, also return the window-local
            argmax of each output element (as used by
            :func:`~chainer.functions.upsampling_2d`).

    Returns:
        ~chainer.Variable or tuple: The output of shape
        ``(n, c, o_1, ..., o_N)`` (same dtype), with
        ``o_i = (d_i + 2 p_i - k_i [+ s_i - 1 if cover_all]) // s_i + 1``;
        with ``return_indices``, a pair of it and an ``int64`` index array of
        the same shape.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2)
        >>> F.max_pooling_nd(x, 2).array.ravel()
        array([7.], dtype=float32)
    """
    ndim = len(x.shape[2:])
    func = MaxPoolingND(ndim, ksize, stride, pad, cover_all, return_indices)
    (y,) = func.apply((x,))
    if return_indices:
        return y, func.indexes
    return y


def max_pooling_1d(x, ksize, stride=None, pad=0, cover_all=True, return_indices=False):
    """1-dimensional spatial max pooling function.

    :func:`max_pooling_nd` for inputs of shape ``(n, c, w)``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array ``(n, c, w)``.
        ksize (int or tuple of ints): Window size.
        stride (int or tuple of ints or None): Stride; ``None`` uses ``ksize``.
        pad (int or tuple of ints): Spatial padding.
        cover_all (bool): If ``True``, all spatial locations are pooled.
        return_indices (bool): If ``True``, also return the argmax indexes.

    Returns:
        ~chainer.Variable or tuple: See :func:`max_pooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly one spatial axis.
    """
    _util.check_ndim(x, 1)
    return max_pooling_nd(x, ksize, stride, pad, cover_all, return_indices)


def max_pooling_3d(x, ksize, stride=None, pad=0, cover_all=True, return_indices=False):
    """3-dimensional spatial max pooling function.

    :func:`max_pooling_nd` for inputs of shape ``(n, c, d, h, w)``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array ``(n, c, d, h, w)``.
        ksize (int or tuple of ints): Window size.
        stride (int or tuple of ints or None): Stride; ``None`` uses ``ksize``.
        pad (int or tuple of ints): Spatial padding.
        cover_all (bool): If ``True``, all spatial locations are pooled.
        return_indices (bool): If ``True``, also return the argmax indexes.

    Returns:
        ~chainer.Variable or tuple: See :func:`max_pooling_nd`.

    Raises:
        ValueError: If ``x`` does not have exactly three spatial axes.
    """
    _util.check_ndim(x, 3)
    return max_pooling_nd(x, ksize, stride, pad, cover_all, return_indices)
