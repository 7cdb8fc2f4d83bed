"""Initializers: callables that fill parameter arrays in place."""

from __future__ import annotations

import numbers
from typing import Any

import numpy

import chainer
from chainer import backend
from chainer.initializers import constant
from chainer.initializers import normal
from chainer.initializers import orthogonal
from chainer.initializers import sampling
from chainer.initializers import uniform

Constant = constant.Constant
Identity = constant.Identity
NaN = constant.NaN
One = constant.One
Zero = constant.Zero
GlorotNormal = normal.GlorotNormal
HeNormal = normal.HeNormal
LeCunNormal = normal.LeCunNormal
Normal = normal.Normal
Orthogonal = orthogonal.Orthogonal
DownsamplingConvFilter = sampling.DownsamplingConvFilter
UpsamplingDeconvFilter = sampling.UpsamplingDeconvFilter
GlorotUniform = uniform.GlorotUniform
HeUniform = uniform.HeUniform
LeCunUniform = uniform.LeCunUniform
Uniform = uniform.Uniform

__all__ = [
    "Constant",
    "DownsamplingConvFilter",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "LeCunNormal",
    "LeCunUniform",
    "NaN",
    "Normal",
    "One",
    "Orthogonal",
    "Uniform",
    "UpsamplingDeconvFilter",
    "Zero",
    "generate_array",
]


def _default_dtype():
    """Core-internal: the dtype of newly generated arrays (``config.dtype``)."""
    return chainer.get_dtype()


def generate_array(
    initializer: Any,
    shape: int | tuple[int, ...],
    xp: Any,
    dtype: Any | None = None,
    device: Any | None = None,
):
    """Return initialized array.

    The algorithms used to make the new values depend on the
    ``initializer``. The dtype is ``dtype`` if given, else the initializer's
    ``dtype`` attribute, else :func:`chainer.get_dtype` (``config.dtype``).

    Args:
        initializer: A callable object that takes an :ref:`ndarray` and edits
            its value.
        shape (int or tuple of int): Shape of the array.
        xp (module): :mod:`numpy` or another array module (e.g. ``cupy``).
        dtype: Dtype specifier. It must agree with the initializer's own
            ``dtype`` when both are given.
        device: Target device specifier (anything :func:`chainer.get_device`
            accepts). Its array module must be ``xp``; if omitted the array is
            made by ``xp`` on its current device.

    Returns:
        :ref:`ndarray`: An initialized array.
    """
    if not callable(initializer):
        raise TypeError(
            f"initializer must be callable; got {type(initializer).__name__}"
        )
    own_dtype = getattr(initializer, "dtype", None)
    if (
        dtype is not None
        and own_dtype is not None
        and numpy.dtype(dtype) != numpy.dtype(own_dtype)
    ):
        raise ValueError(
            f"dtype mismatch: {numpy.dtype(dtype).name} != "
            f"{numpy.dtype(own_dtype).name} (the initializer's dtype)"
        )
    dtype = chainer.get_dtype(own_dtype if dtype is None else dtype)
    if device is None:
        array = xp.empty(shape, dtype=dtype)
    else:
        device = backend.get_device(device)
        if device.xp is not xp:
            raise ValueError(
                f"xp and device arguments are inconsistent: xp is {xp.__name__} "
                f"but {device} uses {device.xp.__name__}"
            )
        with backend.using_device(device):
            array = xp.empty(shape, dtype=dtype)
    initializer(array)
    return array


def _check_is_initializer_like(initializer):
    """Raises ``TypeError`` unless ``initializer`` can initialize a parameter.

    Accepted: None, an :class:`~chainer.Initializer` or any callable, an array
    of a known backend, and a scalar.
    """
    if not (
        initializer is None
        or isinstance(initializer, chainer.Initializer)
        or callable(initializer)
        or backend.is_array_supported(initializer)
        or numpy.isscalar(initializer)
    ):
        raise TypeError(
            f"Initializer is of wrong type: {type(initializer)}. Allowed types "
            "are Initializer, ndarray and scalar."
        )


def _get_initializer(initializer):
    """Core-internal: turns an ``initialW``-style argument into an initializer.

    None gives :class:`LeCunNormal`, a scalar or an array gives
    :class:`Constant`, and a callable is returned as it is.
    """
    if initializer is None:
        return LeCunNormal()
    if isinstance(initializer, numbers.Number) or backend.is_array_supported(
        initializer
    ):
        return Constant(initializer)
    if isinstance(initializer, numpy.generic):
        return Constant(initializer)
    if not callable(initializer):
        raise TypeError(f"invalid type of initializer: {type(initializer).__name__}")
    return initializer
