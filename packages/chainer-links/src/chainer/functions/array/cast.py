from chainer import primitive_ops
from chainer.primitive_ops.array import Cast

__all__ = ["Cast", "cast"]


def cast(x, typ):
    """Casts an input variable to a given type.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array of any shape.
        typ (str or dtype): The target dtype.

    Returns:
        ~chainer.Variable: Variable of dtype ``typ`` and the shape of ``x``;
        ``x`` itself (as a Variable) when it already has that dtype. The
        gradient is cast back to the dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(0, 3, dtype=np.float64)
        >>> F.cast(x, np.float32).dtype
        dtype('float32')
    """
    return primitive_ops.cast(x, typ)
