from chainer import primitive_ops


def flatten(x):
    """Flattens a given array into one dimension.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array of any shape.

    Returns:
        ~chainer.Variable: 1-d Variable of ``x.size`` elements in C order.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> F.flatten(x).array
        array([1., 2., 3., 4.], dtype=float32)
    """
    return primitive_ops.reshape(x, (x.size,))
