"""Initializers filling arrays with fixed values."""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from chainer import backend
from chainer import initializer
from chainer.initializers import _util


class Identity(initializer.Initializer):
    """Initializes array with the identity matrix.

    It initializes the given array with the constant multiple of the identity
    matrix. Only 2-D square arrays are supported.

    Args:
        scale (scalar): A constant to be multiplied to the identity matrix.
        dtype: Data type specifier.

    Attributes:
        scale (scalar): A constant to be multiplied to the identity matrix.
        dtype: Data type specifier.
    """

    def __init__(self, scale=1.0, dtype=None):
        self.scale = scale
        super().__init__(dtype)

    def __call__(self, array):
        """Fills ``array`` with ``scale`` times the identity matrix.

        Args:
            array (:ref:`ndarray`): A square 2-D array.
        """
        _util.check_dtype(self, array)
        shape = array.shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(
                "Identity matrix initialization can only be used for 2D squared "
                f"matrices; got shape {shape}"
            )
        xp = backend.get_array_module(array)
        array[...] = xp.identity(shape[0], dtype=array.dtype)
        if self.scale != 1:
            array *= self.scale


class Constant(initializer.Initializer):
    """Initializes array with constant value.

    Args:
        fill_value (scalar or :ref:`ndarray`): A constant to be assigned to
            the initialized array. Broadcast is allowed on this assignment.
        dtype: Data type specifier.

    Attributes:
        fill_value (scalar or :ref:`ndarray`): A constant to be assigned to
            the initialized array. Broadcast is allowed on this assignment.
        dtype: Data type specifier.
    """

    fill_value: Any = None

    def __init__(self, fill_value, dtype=None):
        is_scalar = isinstance(fill_value, numbers.Number) or (
            isinstance(fill_value, numpy.generic) and fill_value.dtype.kind in "biufc"
        )
        if not (is_scalar or backend.is_array_supported(fill_value)):
            raise ValueError(
                "fill_value must be either a scalar or an ndarray; got "
                f"{type(fill_value).__name__}"
            )
        self.fill_value = fill_value
        super().__init__(dtype)

    def __call__(self, array):
        """Fills ``array`` with :attr:`fill_value` (broadcast).

        Args:
            array (:ref:`ndarray`): Array to be filled in place.
        """
        _util.check_dtype(self, array)
        value = self.fill_value
        if backend.is_array_supported(value):
            value = backend.get_device_from_array(array).send(value)
        array[...] = value


class Zero(Constant):
    """Initializes array to all-zero.

    Args:
        dtype: Data type specifier.
    """

    fill_value = 0.0

    def __init__(self, dtype=None):
        super().__init__(0.0, dtype=dtype)


class One(Constant):
    """Initializes array to all-one.

    Args:
        dtype: Data type specifier.
    """

    fill_value = 1.0

    def __init__(self, dtype=None):
        super().__init__(1.0, dtype=dtype)


class NaN(Constant):
    """Initializes array to all-NaN.

    Args:
        dtype: Data type specifier.
    """

    fill_value = numpy.nan

    def __init__(self, dtype=None):
        super().__init__(numpy.nan, dtype=dtype)
