import numbers

import numpy

from chainer import backend
from chainer import initializer
from chainer import link
from chainer.functions.activation import maxout
from chainer.links.connection import linear


class _Reshaped(initializer.Initializer):
    """Runs an initializer on a view of the array with another shape."""

    def __init__(self, inner, shape):
        super().__init__(getattr(inner, "dtype", None))
        self.inner = inner
        self.shape = shape

    def __call__(self, array):
        self.inner(array.reshape(self.shape))


def _to_linear(value, shape, name):
    # Maxout's (out_size, pool_size, ...) layout flattened for its Linear.
    if value is None or isinstance(value, (numbers.Number, numpy.generic)):
        return value
    if backend.is_array_supported(value):
        if value.shape != shape:
            raise ValueError(f"{name}.shape must be {shape}, got {value.shape}")
        return value.reshape(shape[0] * shape[1], *shape[2:])
    if callable(value):
        # -1 rather than in_size: the weight may be initialized lazily.
        return _Reshaped(value, shape[:2] + (-1,) * (len(shape) - 2))
    raise TypeError(
        f"{name} must be an initializer, a scalar, an array or None; "
        f"got {type(value).__name__}"
    )


class Maxout(link.Chain):
    """Fully-connected maxout layer.

    Let ``M``, ``P`` and ``N`` be the input dimension, the pool size and the
    output dimension. For an input vector :math:`x` of size ``M`` it computes

    .. math:: Y_{i} = \\mathrm{max}_{j} (W_{ij\\cdot}x + b_{ij}),

    where :math:`W` is a weight tensor of shape ``(M, P, N)`` (stored as a
    linear layer of ``N * P`` outputs), :math:`b` a bias of shape
    ``(M, P)`` and :math:`W_{ij\\cdot}` the sub-vector extracted from
    :math:`W` by fixing its first and second indices.

    Args:
        in_size (int): Dimension of input vectors (``M``).
        out_size (int): Dimension of output vectors (``N``).
        pool_size (int): Number of channels pooled into one output (``P``).
        initialW (:ref:`initializer <initializer>`, scalar, array or None):
            Initializer of the weight. An array must have the shape
            ``(out_size, pool_size, in_size)``; an initializer is run on an
            array of that shape. ``None`` means the default of
            :class:`~chainer.links.Linear`.
        initial_bias (:ref:`initializer <initializer>`, scalar, array or
            None): Initializer of the bias. An array must have the shape
            ``(out_size, pool_size)``. If ``None``, the layer has no bias.

    Attributes:
        linear (~chainer.Link): The :class:`~chainer.links.Linear` link that
            computes the ``out_size * pool_size`` pre-activations.
        out_size (int): Output dimension.
        pool_size (int): Pool size.

    .. seealso:: :func:`~chainer.functions.maxout`

    .. seealso:: Goodfellow, I., Warde-farley, D., Mirza, M., Courville, A.,
        & Bengio, Y. (2013). Maxout Networks. In Proceedings of the 30th
        International Conference on Machine Learning (ICML-13) (pp.
        1319-1327). `URL <http://jmlr.org/proceedings/papers/v28/
        goodfellow13.html>`_

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> W = np.array([[[1], [-1]]], np.float32)  # (out, pool, in)
        >>> layer = L.Maxout(1, 1, 2, initialW=W)
        >>> layer(np.array([[-3.0], [2.0]], np.float32)).array
        array([[3.],
               [2.]], dtype=float32)
    """

    def __init__(self, in_size, out_size, pool_size, initialW=None, initial_bias=0):
        super().__init__()
        linear_out_size = out_size * pool_size
        initialW = _to_linear(initialW, (out_size, pool_size, in_size), "initialW")
        initial_bias = _to_linear(initial_bias, (out_size, pool_size), "initial_bias")
        with self.init_scope():
            self.linear = linear.Linear(
                in_size,
                linear_out_size,
                nobias=initial_bias is None,
                initialW=initialW,
                initial_bias=initial_bias,
            )
        self.out_size = out_size
        self.pool_size = pool_size

    def forward(self, x):
        """Applies the maxout layer.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Batch of input vectors,
                of shape ``(batch_size, in_size)`` (further axes are
                flattened as in :class:`~chainer.links.Linear`).

        Returns:
            ~chainer.Variable: Output of the maxout layer, of shape
            ``(batch_size, out_size)``.
        """
        return maxout.maxout(self.linear(x), self.pool_size)
