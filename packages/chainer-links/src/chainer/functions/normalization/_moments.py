"""Per-channel reductions shared by the normalization functions (private).

A normalization reduces ``x`` over some axes and keeps one statistic per
position of the other ("channel") axes. When the channel axes are adjacent,
``x`` is viewed as a 3-d ``(A, K, B)`` array (``K`` channels between the
reduced leading and trailing blocks), and a per-channel sum is one reduction
over axes 0 and 2. These are the reference reductions over ``xp``; NumPy's
faster formulations per shape and memory order are chainer-cpu's kernels
(``chainer_cpu.functions.normalization``).
"""

import math

import numpy

from chainer import backend
from chainer.utils import type_check


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
        axis (tuple of int): The reduced axes.
        channels (int): Number of channels (statistics).
        count (int): Number of reduced elements per channel.
        full (tuple): ``x.shape`` with 1 on the reduced axes.
        view_shape (tuple or None): ``(A, K, B)`` that :meth:`view` reshapes
            ``x`` to when the channel axes are adjacent, else None (views
            are then ``x`` itself).
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
        return backend.get_array_module(a).einsum("akb->k", a)

    def dot(self, a, b):
        """Per-channel sums of ``a * b`` (two views), as a flat array."""
        if self.view_shape is None:
            return (a * b).sum(axis=self.axis).ravel()
        return backend.get_array_module(a).einsum("akb,akb->k", a, b)
