"""Base class of initializers and the fan computation they share."""

from __future__ import annotations

import math
from typing import Any


class Initializer:
    """Initializes array.

    An initializer is a callable that fills a given array in place. Concrete
    initializers override :meth:`__call__`.

    Args:
        dtype: Data type specifier of the arrays it fills. If ``None``, the
            arrays' own dtype is accepted (and :func:`chainer.get_dtype`
            decides it when the array is generated).

    Attributes:
        dtype: Data type specifier.
    """

    def __init__(self, dtype: Any | None = None) -> None:
        self.dtype = dtype

    def __call__(self, array):
        """Initializes given array.

        This method destructively changes the value of array. The derived
        class is required to implement this method. The algorithms used to
        make the new values depend on the concrete derived classes.

        Args:
            array (:ref:`ndarray`): An array to be initialized by this
                initializer.
        """
        raise TypeError(
            f"{type(self).__name__} does not override __call__(array); an "
            "Initializer subclass must fill the array itself"
        )


def get_fans(shape):
    """Returns the fan-in and fan-out of a weight of the given shape.

    The first axis is the output axis, the second one the input axis, and the
    remaining axes (if any) form the receptive field.

    Args:
        shape (tuple of int): Shape of the weight; at least two axes.

    Returns:
        tuple of int: ``(fan_in, fan_out)``.
    """
    if not isinstance(shape, tuple):
        raise ValueError(f"shape must be tuple; got {type(shape).__name__}")
    if len(shape) < 2:
        raise ValueError(f"shape must be of length >= 2: shape={shape}")
    receptive_field_size = math.prod(shape[2:])
    fan_in = shape[1] * receptive_field_size
    fan_out = shape[0] * receptive_field_size
    return fan_in, fan_out
