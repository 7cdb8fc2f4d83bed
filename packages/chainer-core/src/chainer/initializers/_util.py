"""Helpers shared by the initializer modules of this package."""

from __future__ import annotations

import numpy


def check_dtype(initializer, array):
    """Raises ValueError if ``array`` does not have the initializer's dtype."""
    dtype = initializer.dtype
    if dtype is not None and numpy.dtype(dtype) != array.dtype:
        raise ValueError(
            f"{type(initializer).__name__} was created for dtype "
            f"{numpy.dtype(dtype).name} but got an array of dtype "
            f"{array.dtype.name}"
        )


def pop_rng(cls_name, kwargs):
    """Returns the ``rng`` keyword argument and rejects any other keyword."""
    rng = kwargs.pop("rng", None)
    if kwargs:
        names = ", ".join(sorted(kwargs))
        raise TypeError(f"{cls_name}() got unexpected keyword argument(s): {names}")
    return rng


def draw_dtype(array):
    """Returns the dtype in which to draw random values for ``array``."""
    if array.dtype in (numpy.float32, numpy.float64):
        return array.dtype
    return numpy.dtype(numpy.float32)
