"""The NumPy backend (``chainer.backends._cpu``).

:class:`CpuDevice` is defined in :mod:`chainer.backend` and re-exported here,
where Chainer 7 defines it, with the helpers that copy arrays to host memory.
"""

from __future__ import annotations

import numpy

from chainer import backend
from chainer.backend import CpuDevice


def _to_cpu(array):
    # Any array of a known backend (or a NumPy scalar) -> numpy.ndarray.
    assert array is not None
    if isinstance(array, numpy.ndarray):
        return array
    if numpy.isscalar(array):
        return numpy.asarray(array)
    if backend.is_array_supported(array):
        return backend.CpuDevice().send_array(array)
    raise TypeError(
        f"Array cannot be converted into an numpy.ndarray\nActual type: {type(array)}."
    )


def _array_to_cpu(array):
    # Like _to_cpu, with None passed through.
    if array is None:
        return None
    return _to_cpu(array)


__all__ = ["CpuDevice"]
