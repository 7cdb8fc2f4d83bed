"""Small utilities shared by functions and links (``chainer.utils``)."""

from __future__ import annotations

import numpy


def force_array(x, dtype=None):
    """Returns ``x`` as an array (0-d NumPy scalars become 0-d arrays).

    Args:
        x: An array or a NumPy scalar.
        dtype: If given, the result has this dtype.
    """
    if numpy.isscalar(x):
        return numpy.asarray(x, dtype=dtype)
    if dtype is not None and x.dtype != dtype:
        return x.astype(dtype, copy=False)
    return x


def force_type(dtype, value):
    """Casts a scalar or array ``value`` to ``dtype``."""
    if numpy.isscalar(value):
        return numpy.dtype(dtype).type(value)
    if value.dtype != dtype:
        return value.astype(dtype, copy=False)
    return value


def size_of_shape(shape):
    """Returns the number of elements of an array of ``shape``."""
    size = 1
    for s in shape:
        size *= s
    return int(size)
