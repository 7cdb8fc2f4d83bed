"""Formatting helpers for error messages (``chainer.utils.error``)."""

from __future__ import annotations


def _format_array_props(arrays):
    # "shape:dtype" of each array ("None" for a missing one), comma-separated.
    if not isinstance(arrays, (list, tuple)):
        raise TypeError("arrays must be a list or a tuple")
    return ", ".join(
        "None" if arr is None else f"{arr.shape}:{arr.dtype.name}" for arr in arrays
    )
