from chainer import primitive_ops
from chainer.primitive_ops.array import GetItem
from chainer.primitive_ops.array import GetItemGrad

__all__ = ["GetItem", "GetItemGrad", "get_item"]


def get_item(x, slices):
    """Extracts elements from an array with NumPy indexing (``x[slices]``).

    Basic indexing (ints, slices, ``None``, ``Ellipsis``) and advanced
    indexing (integer or boolean arrays, lists, Variables) are supported. In
    the gradient, elements picked several times receive the sum of their
    gradients.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array to index.
        slices (int, slice, Ellipsis, None, integer or boolean array, list,
            or tuple of them): The index, as NumPy accepts it.

    Returns:
        ~chainer.Variable: The selected elements, shaped as ``x[slices]``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(12, dtype=np.float32).reshape(3, 4)
        >>> F.get_item(x, (slice(None), [0, 0, 3])).array
        array([[ 0.,  0.,  3.],
               [ 4.,  4.,  7.],
               [ 8.,  8., 11.]], dtype=float32)
    """
    return primitive_ops.get_item(x, slices)
