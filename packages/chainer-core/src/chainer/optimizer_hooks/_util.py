"""Helpers shared by the optimizer hook modules of this package."""

from __future__ import annotations

import numbers

import numpy


def check_number(cls_name, arg_name, value):
    """Raises TypeError unless ``value`` is a real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{cls_name}: {arg_name} must be a real number; got {value!r}")


def loss_scale(param):
    """Returns the factor the gradient of ``param`` is still scaled by, or 1.

    ``loss.backward(loss_scale=...)`` records it on the parameters; the update
    rule divides it out, so hooks running before that compensate for it.
    """
    scale = getattr(param, "_loss_scale", None)
    return 1.0 if scale is None else scale


def float_for_norm(x):
    """Returns ``x`` flattened, in float32 if it is float16 (avoids overflow)."""
    if x.dtype == numpy.float16:
        x = x.astype(numpy.float32)
    return x.ravel()
