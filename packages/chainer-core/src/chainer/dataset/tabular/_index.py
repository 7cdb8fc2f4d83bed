"""Row/column index helpers shared by the tabular dataset views."""

from __future__ import annotations

import operator

import numpy

from chainer import backend


def is_array(x):
    """Returns whether ``x`` is an array of NumPy or of a registered backend."""
    if isinstance(x, numpy.ndarray):
        return True
    # Lists and scalars are common; keep them away from the registry lookup.
    if type(x).__module__ in ("builtins", "numpy"):
        return False
    return backend.is_array_supported(x)


def range_to_slice(r):
    """Returns a slice selecting exactly ``r`` from a sequence it was cut from."""
    if len(r) == 0:
        return slice(0, 0, 1)
    # A negative stop would count from the end once reinterpreted as a slice.
    return slice(r.start, r.stop if r.stop >= 0 else None, r.step)


def normalize_rows(indices, length):
    """Validates requested rows; returns a canonical slice or a list of ints.

    Accepts a slice, a list of ints or bools, or an integer or boolean array.
    Negative integers count from the end; out-of-range ones raise IndexError.
    """
    if isinstance(indices, slice):
        return range_to_slice(range(length)[indices])
    if isinstance(indices, list):
        if indices and all(isinstance(i, (bool, numpy.bool_)) for i in indices):
            indices = numpy.asarray(indices, dtype=bool)
        else:
            return [normalize_int(i, length) for i in indices]
    elif not isinstance(indices, numpy.ndarray):
        if not is_array(indices):
            raise TypeError(
                "rows must be given by a slice, a list or an array of ints/bools, "
                f"got {type(indices).__name__}"
            )
        indices = numpy.asarray(backend.CpuDevice().send(indices))
    if indices.dtype == numpy.bool_:
        if indices.shape != (length,):
            raise IndexError(
                f"boolean mask of shape {indices.shape} does not match {length} rows"
            )
        return numpy.flatnonzero(indices).tolist()
    if indices.ndim != 1 or indices.dtype.kind not in "iu":
        raise IndexError(
            "rows must be a 1-d array of ints or bools, got dtype "
            f"{indices.dtype} with shape {indices.shape}"
        )
    normalized = numpy.where(indices < 0, indices + length, indices)
    bad = (normalized < 0) | (normalized >= length)
    if bad.any():
        raise IndexError(
            f"row index {int(indices[bad.argmax()])} is out of range for {length} rows"
        )
    return normalized.tolist()


def normalize_int(i, length):
    """Validates one row index (negative counts from the end)."""
    try:
        j = operator.index(i)
    except TypeError:
        raise TypeError(
            f"row indices must be integers, got {type(i).__name__}"
        ) from None
    if j < 0:
        j += length
    if not 0 <= j < length:
        raise IndexError(f"row index {i} is out of range for {length} rows")
    return j


def key_index(keys, key):
    """Returns the position of ``key`` (a name or an int) among ``keys``."""
    if isinstance(key, str):
        try:
            return keys.index(key)
        except ValueError:
            raise KeyError(f"key {key!r} is not one of {keys}") from None
    try:
        k = operator.index(key)
    except TypeError:
        raise TypeError(
            f"keys must be given by name or position, got {type(key).__name__}"
        ) from None
    if not -len(keys) <= k < len(keys):
        raise IndexError(f"key position {k} is out of range for keys {keys}")
    return k % len(keys)


def compose_rows(own, requested, length):
    """Maps rows requested from a view onto rows of the underlying dataset.

    ``own`` is the view's canonical slice or list over ``length`` rows;
    ``requested`` is None, a slice or a list of ints relative to the view.
    """
    if requested is None:
        return own
    if isinstance(own, slice):
        base = range(length)[own]
        if isinstance(requested, slice):
            return range_to_slice(base[requested])
        return [base[i] for i in requested]
    if isinstance(requested, slice):
        return own[requested]
    return [own[i] for i in requested]


def iter_rows(indices, length):
    """Returns an iterable of the row numbers ``indices`` stands for."""
    if indices is None:
        return range(length)
    if isinstance(indices, slice):
        return range(length)[indices]
    return indices


def take(column, indices):
    """Selects rows of one column (a list, an array or any sequence)."""
    if indices is None:
        return column
    if is_array(column):
        if isinstance(indices, slice):
            return column[indices]
        xp = backend.get_array_module(column)
        return column[xp.asarray(indices, dtype=numpy.intp)]
    if isinstance(column, list) and isinstance(indices, slice):
        return column[indices]
    return [column[i] for i in iter_rows(indices, len(column))]


def concat_columns(parts):
    """Concatenates pieces of one column; arrays stay arrays."""
    if len(parts) == 1:
        return parts[0]
    if all(isinstance(p, numpy.ndarray) for p in parts):
        return numpy.concatenate(parts)
    if all(is_array(p) for p in parts):
        xp = backend.get_array_module(parts[0])
        if all(backend.get_array_module(p) is xp for p in parts):
            return xp.concatenate(parts)
    result = []
    for p in parts:
        result.extend(p)
    return result


def as_array(column):
    """Converts one fetched column into an array (arrays pass through)."""
    if is_array(column):
        return column
    if len(column) > 0 and backend.get_array_module(column[0]) is not numpy:
        xp = backend.get_array_module(column[0])
        with backend.using_device(backend.get_device_from_array(column[0])):
            return xp.stack(column)
    return numpy.asarray(column)
