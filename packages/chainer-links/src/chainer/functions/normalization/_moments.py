"""Per-channel reductions shared by the normalization functions (private).

A normalization reduces ``x`` over some axes and keeps one statistic per
position of the other ("channel") axes. When the channel axes are adjacent,
``x`` is viewed as a 3-d ``(A, K, B)`` array (``K`` channels between the
reduced leading and trailing blocks), which lets each reduction pick the
fastest NumPy formulation for its shape.
"""

import math

import numpy

from chainer import backend
from chainer.utils import type_check

# Below this many trailing elements per channel, summing over the leading axis
# first (contiguous row additions) beats einsum; above it einsum wins
# (measured on (64, C, H, W) float32 arrays, H * W from 4 to 1024).
_EINSUM_MIN_TRAILING = 32
# From this many, per-channel dot products go to matmul as one GEMV per
# (sample, channel) row, or per channel when the channel axis is outermost in
# memory: 0.25 and 0.13 vs 0.44 ms for einsum on a channel-major
# (64, 32, 1024) float32 pair, and closer to a float64 reference.
_MATMUL_MIN_TRAILING = 256


def default_axis(x_ndim, gamma_ndim):
    """The reduced axes when ``axis`` is None: all but axes 1..gamma_ndim."""
    return (0, *range(gamma_ndim + 1, x_ndim))


def canonical_axis(axis, x_ndim, gamma_ndim):
    """``axis`` as a tuple of non-negative ints (None gives the default).

    Out-of-range or repeated axes are returned as they are, for the type
    check to report.
    """
    if axis is None:
        return default_axis(x_ndim, gamma_ndim)
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(a + x_ndim if -x_ndim <= a < 0 else a for a in axis)


def expect_channel_shapes(x_type, gamma_type, axis):
    """Type check: ``gamma`` has the shape of ``x`` without the axes ``axis``."""
    x_ndim = type_check.eval(x_type.ndim)
    gamma_ndim = type_check.eval(gamma_type.ndim)
    axis = canonical_axis(axis, x_ndim, gamma_ndim)
    for a in axis:
        if not 0 <= a < x_ndim:
            raise type_check.InvalidType(
                f"0 <= axis < x.ndim = {x_ndim}", f"axis = {a}"
            )
    if len(set(axis)) != len(axis):
        raise type_check.InvalidType("no repeated axis", f"axis = {axis}")
    key = [i for i in range(x_ndim) if i not in axis]
    type_check.expect(gamma_type.ndim == len(key))
    for i, k in enumerate(key):
        type_check.expect(x_type.shape[k] == gamma_type.shape[i])


def check_running_shapes(shape, running_mean, running_var):
    """Raises ValueError unless both running statistics have ``shape``."""
    for name, value in (("running_mean", running_mean), ("running_var", running_var)):
        if value.shape != tuple(shape):
            raise ValueError(
                f"{name} must have the shape of gamma {tuple(shape)}, got {value.shape}"
            )


_COMPUTE_DTYPES = {}


def compute_dtype(x_dtype, param_dtype):
    """Dtype the statistics are computed in: float16 is promoted to float32."""
    key = (x_dtype, param_dtype)
    dtype = _COMPUTE_DTYPES.get(key)
    if dtype is None:
        dtype = numpy.result_type(x_dtype, param_dtype)
        if dtype.itemsize < 4:
            dtype = numpy.dtype(numpy.float32)
        _COMPUTE_DTYPES[key] = dtype
    return dtype


# Layouts by (shape, axis): a training loop sees few shapes, so this saves
# rebuilding one per call; cleared when it grows (e.g. varying lengths).
_LAYOUTS = {}
_MAX_LAYOUTS = 256


def get_layout(shape, axis):
    """The (cached) :class:`Layout` of ``shape`` reduced over ``axis``."""
    key = (shape, axis)
    layout = _LAYOUTS.get(key)
    if layout is None:
        if len(_LAYOUTS) >= _MAX_LAYOUTS:
            _LAYOUTS.clear()
        layout = _LAYOUTS[key] = Layout(shape, axis)
    return layout


class Layout:
    """How ``x`` of a given shape is reduced over ``axis`` (canonical tuple).

    Attributes:
        count (int): Number of reduced elements per channel.
        stat_shape (tuple): Shape a flat statistic of length ``channels`` is
            reshaped to for broadcasting against :meth:`view` arrays.
    """

    __slots__ = ("axis", "channels", "count", "full", "stat_shape", "view_shape")

    def __init__(self, shape, axis):
        ndim = len(shape)
        key = [i for i in range(ndim) if i not in axis]
        self.axis = axis
        self.count = math.prod([shape[i] for i in axis])
        self.channels = math.prod([shape[i] for i in key])
        # Shape of a per-channel statistic broadcast against x itself.
        self.full = tuple(1 if i in axis else shape[i] for i in range(ndim))
        if not key:
            lo = hi = 0
        elif key[-1] - key[0] == len(key) - 1:
            lo, hi = key[0], key[-1] + 1
        else:
            lo = None
        if lo is None:
            self.view_shape = None
            self.stat_shape = self.full
        else:
            self.view_shape = (
                math.prod(shape[:lo]),
                self.channels,
                math.prod(shape[hi:]),
            )
            self.stat_shape = (1, self.channels, 1)

    def view(self, a):
        """``a`` (shaped like x) in the reduction layout (a view if possible)."""
        if self.view_shape is None:
            return a
        return a.reshape(self.view_shape)

    def expand(self, v):
        """A flat per-channel array reshaped to broadcast against views."""
        return v.reshape(self.stat_shape)

    def sum(self, a):
        """Per-channel sums of a view, as a flat array."""
        if self.view_shape is None:
            return a.sum(axis=self.axis).ravel()
        n_lead, _, n_trail = self.view_shape
        if n_trail == 1:
            return a[:, :, 0].sum(axis=0)
        if n_lead == 1:
            return a[0].sum(axis=1)
        xp = backend.get_array_module(a)
        if n_trail >= _EINSUM_MIN_TRAILING:
            blocks = _channel_blocks(a) if xp is numpy else None
            if blocks is not None:
                return numpy.einsum("kb->k", blocks[0])
            return xp.einsum("akb->k", a)
        return a.sum(axis=0).sum(axis=1)

    def dot(self, a, b):
        """Per-channel sums of ``a * b`` (two views), as a flat array."""
        if self.view_shape is None:
            return (a * b).sum(axis=self.axis).ravel()
        xp = backend.get_array_module(a)
        n_lead, _, n_trail = self.view_shape
        if n_trail == 1:
            return xp.einsum("ak,ak->k", a[:, :, 0], b[:, :, 0])
        if n_lead == 1:
            return xp.einsum("kb,kb->k", a[0], b[0])
        if n_trail >= _MATMUL_MIN_TRAILING and xp is numpy:
            return _dot_matmul(a, b)
        if n_trail >= _EINSUM_MIN_TRAILING:
            return xp.einsum("akb,akb->k", a, b)
        return (a * b).sum(axis=0).sum(axis=1)


def _channel_blocks(a, b=None):
    # When each channel of the (n, c, k) array a (and b) fills one block of
    # memory, in the same element order for both (channel-major or
    # batch-innermost NumPy arrays): (c, n * k) views of them; else None.
    for order in ((1, 0, 2), (1, 2, 0)):
        at = a.transpose(order)
        if at.flags.c_contiguous:
            bt = None if b is None else b.transpose(order)
            if bt is None or bt.flags.c_contiguous:
                channels = a.shape[1]
                return (
                    at.reshape(channels, -1),
                    None if bt is None else bt.reshape(channels, -1),
                )
    return None


def _dot_matmul(a, b):
    # Per-channel sums of a * b over axes 0 and 2 of two (n, c, k) arrays.
    blocks = _channel_blocks(a, b)
    if blocks is not None:
        ab, bb = blocks
        return numpy.matmul(ab[:, None, :], bb[:, :, None]).ravel()
    return numpy.matmul(a[:, :, None, :], b[:, :, :, None]).sum(axis=0).ravel()
