"""Fixtures of the pooling kernels' tests: inputs in each memory order."""

import numpy
import pytest

from chainer_cpu import _layout


def _as_layout(x, layout):
    # x (n, c, *spatial) with the same values, stored in the named order.
    if layout == "c_order":
        return numpy.ascontiguousarray(x)
    if layout == "batch_innermost":
        y = _layout.as_batch_innermost(x).transpose(x.ndim - 1, *range(x.ndim - 1))
        assert _layout.is_batch_innermost(y)
        return y
    if layout == "channels_last":
        nd = x.ndim - 2
        dense = numpy.ascontiguousarray(x.transpose(0, *range(2, x.ndim), 1))
        y = dense.transpose(0, nd + 1, *range(1, nd + 1))
        assert y.transpose(0, *range(2, y.ndim), 1).flags.c_contiguous
        return y
    if layout == "channel_major":
        return numpy.ascontiguousarray(x.swapaxes(0, 1)).swapaxes(0, 1)
    # A strided view into a larger array.
    big = numpy.zeros((x.shape[0], x.shape[1] * 2, *x.shape[2:]), x.dtype)
    big[:, ::2] = x
    return big[:, ::2]


@pytest.fixture
def as_layout():
    """``as_layout(x, layout)``: ``x`` stored ``"c_order"``, ``"batch_innermost"``,
    ``"channels_last"``, ``"channel_major"`` or (any other name) strided."""
    return _as_layout
