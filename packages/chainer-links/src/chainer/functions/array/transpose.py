from chainer import primitive_ops
from chainer.primitive_ops.array import Transpose

__all__ = ["Transpose", "transpose"]


def transpose(x, axes=None):
    """Permutes the dimensions of an input variable without copy.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input array of any shape.
        axes (tuple of ints): A permutation of ``range(x.ndim)``; by default
            the dimensions are reversed.

    Returns:
        ~chainer.Variable: Variable whose axes are permuted.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.zeros((1, 2, 3), np.float32)
        >>> F.transpose(x).shape
        (3, 2, 1)
        >>> F.transpose(x, (0, 2, 1)).shape
        (1, 3, 2)
    """
    return primitive_ops.transpose(x, axes)
