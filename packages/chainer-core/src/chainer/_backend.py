"""The device base class (``chainer._backend``).

:class:`Device` is defined in :mod:`chainer.backend` and re-exported here,
where Chainer 7 defines it; :func:`_convert_arrays` applies a conversion to an
array or to each array of a list or tuple.
"""

from __future__ import annotations

from chainer.backend import Device


def _convert_arrays(array, func):
    # Converts an array, or each array of a list/tuple (None entries kept;
    # one array listed twice is converted once).
    if isinstance(array, (list, tuple)):
        done = {}
        converted = []
        for arr in array:
            if arr is None:
                converted.append(None)
                continue
            key = id(arr)
            if key not in done:
                done[key] = func(arr)
            converted.append(done[key])
        return type(array)(converted)
    return func(array)


__all__ = ["Device"]
