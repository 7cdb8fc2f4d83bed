from chainer import primitive_ops
from chainer.primitive_ops.array import Reshape

__all__ = ["Reshape", "reshape"]


def reshape(x, shape):
    """Reshapes an input variable without copy.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input array of any shape.
        shape (int or tuple of ints): Target shape with the size of ``x``;
            one entry may be ``-1``, inferred from the others.

    Returns:
        ~chainer.Variable: Variable of shape ``shape`` holding the elements of
        ``x`` in C order; ``x`` itself (as a Variable) when it already has
        that shape.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.arange(6, dtype=np.float32)
        >>> F.reshape(x, (2, -1)).shape
        (2, 3)
    """
    return primitive_ops.reshape(x, shape)
