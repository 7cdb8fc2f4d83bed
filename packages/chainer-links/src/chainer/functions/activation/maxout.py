import numbers

from chainer import primitive_ops
from chainer import variable
from chainer.functions.math import minmax
from chainer.utils import type_check


def maxout(x, pool_size, axis=1):
    """Maxout activation function.

    It accepts an input tensor ``x``, reshapes the ``axis`` dimension (say
    the size being ``M * pool_size``) into two dimensions
    ``(M, pool_size)``, and takes maximum along the ``axis`` dimension. The
    output of this function is same as ``x`` except that ``axis`` dimension is
    transformed from ``M * pool_size`` to ``M``.

    Typically, ``x`` is the output of a linear layer or a convolution layer.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable, a float
            array of ``ndim >= 1`` whose ``axis`` dimension is a multiple of
            ``pool_size``.
        pool_size (int): The size used for downsampling of pooling layer.
        axis (int): The ``axis`` dimension to be reshaped. The size of
            ``axis`` dimension should be ``M * pool_size``.

    Returns:
        ~chainer.Variable: Output variable. Its shape is the same as ``x``
        except that the ``axis`` dimension is ``M``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[1, 5, 3, 2, 0, 4]], np.float32)
        >>> F.maxout(x, 2).array
        array([[5., 3., 4.]], dtype=float32)
    """
    if isinstance(pool_size, bool) or not isinstance(pool_size, numbers.Integral):
        raise TypeError(f"pool_size must be an integer, got {pool_size!r}")
    pool_size = int(pool_size)
    if pool_size <= 0:
        raise ValueError("pool_size must be a positive integer.")
    shape = (x.array if isinstance(x, variable.Variable) else x).shape
    if not -len(shape) <= axis < len(shape):
        raise type_check.InvalidType(
            f"-x.ndim <= axis < x.ndim (axis={axis})", f"x.ndim={len(shape)}"
        )
    axis %= len(shape)
    if shape[axis] % pool_size != 0:
        raise type_check.InvalidType(
            "x.shape[axis] % pool_size == 0",
            f"x.shape[axis]={shape[axis]}, pool_size={pool_size}",
        )
    pooled = (*shape[:axis], shape[axis] // pool_size, pool_size, *shape[axis + 1 :])
    # NOTE: as with F.max, every element equal to its pool's maximum gets
    # the full gradient.
    return minmax.max(primitive_ops.reshape(x, pooled), axis=axis + 1)
