"""Mixed-precision helper for FunctionNodes (``chainer.utils.precision``)."""

from __future__ import annotations

import functools

import numpy


def _fp16_mixed_precision_helper(fn):
    """Decorator running a ``forward`` in float32 for float16 inputs.

    The decorated ``forward(self, inputs)`` receives float16 inputs cast to
    float32. When every floating input was float16, its float32 outputs are
    cast back to float16; otherwise they are returned as computed.
    """

    @functools.wraps(fn)
    def wrapper(self, in_data):
        all_half = all(
            x is None or x.dtype.kind != "f" or x.dtype == numpy.float16
            for x in in_data
        )
        in_data = tuple(
            x.astype(numpy.float32) if x is not None and x.dtype == numpy.float16 else x
            for x in in_data
        )
        out_data = fn(self, in_data)
        if all_half:
            out_data = tuple(
                y.astype(numpy.float16)
                if y is not None and y.dtype == numpy.float32
                else y
                for y in out_data
            )
        return out_data

    return wrapper
