"""NumPy window passes shared by chainer-cpu's pooling kernels.

The catalogue's pooling (:mod:`chainer.functions.pooling.pooling_nd`) works
tap by tap over strided views of the padded input; these helpers do the same
in the memory order of their input. A batch-innermost input (the output of
chainer-cpu's convolutions, see :mod:`chainer_cpu._layout`) gives padded
buffers, outputs and gradients that are batch-innermost too, so that the
next convolution's patch copies stay long contiguous runs; anything else
gives C-contiguous arrays. From the pooling nodes they read only documented
attributes: ``ksize``, ``stride``, ``pad``, ``pad_hi``, ``in_size`` and
``out_size``.
"""

import functools
import itertools

import numpy

from chainer.utils import conv
from chainer_cpu import _layout
from chainer_cpu import _parallel

#: From this many bytes of input gradient, the window scatter is split by
#: channel among the CPU team's threads (LeNet's first pooling layer, 2.9 MB:
#: 1.0 -> 0.73 ms on two vCPUs).
PARALLEL_BYTES = 1 << 20


def is_batch_innermost(x):
    """Whether ``x`` is a batch of two or more lying in memory as ``(c, *spatial, n)``.

    For a batch of one both memory orders are the same, and C order is taken.
    """
    # The stride test first: it answers C-order arrays at once (this runs on
    # every pooling call).
    if x.shape[0] < 2 or x.strides[0] != x.itemsize:
        return False
    return x.transpose(_batch_last(x.ndim)).flags.c_contiguous


def in_order(x, batch_innermost):
    """``x`` ``(n, c, *spatial)`` batch-innermost or C-contiguous (copied if not)."""
    if batch_innermost and x.shape[0] > 1:
        if is_batch_innermost(x):
            return x
        nd = x.ndim - 2
        return _layout.as_batch_innermost(x).transpose(nd + 1, 0, *range(1, nd + 1))
    return numpy.ascontiguousarray(x)


@functools.lru_cache(maxsize=8)
def _batch_last(ndim):
    return (*range(1, ndim), 0)


def pad(x, pad_lo, pad_hi, pval=0, dense=False):
    """Pads the spatial axes of ``x`` ``(n, c, *spatial)``, keeping its memory order.

    Args:
        x (numpy.ndarray): The input.
        pad_lo, pad_hi (tuple of int): Widths before and after each spatial
            axis.
        pval (scalar): Value of the padding.
        dense (bool): Copy an unpadded ``x`` that is neither C-contiguous
            nor batch-innermost into C order (the window passes over a
            channel-major view of a transposed array run 1.8x faster on the
            copy: LeNet's second pooling layer, forward and backward, one
            thread).

    Returns:
        numpy.ndarray: A new batch-innermost array if ``x`` is one and is
        padded, a new C-contiguous one if ``x`` is padded otherwise, else
        ``x`` itself (or its dense copy).
    """
    if not any(pad_lo) and not any(pad_hi):
        if dense and not (x.flags.c_contiguous or is_batch_innermost(x)):
            return numpy.ascontiguousarray(x)
        return x
    if is_batch_innermost(x):
        nd = x.ndim - 2
        buf = _layout.pad_batch_innermost(x, pad_lo, pad_hi, pval)
        return buf.transpose(nd + 1, 0, *range(1, nd + 1))
    return conv.pad_spatial(x, pad_lo, pad_hi, pval)


@functools.lru_cache(maxsize=256)
def tap_slices(ksize, stride, out_size):
    """Per kernel tap (C order over ``ksize``), the key selecting it in every window.

    Args:
        ksize, stride, out_size (tuple of int): Window geometry per spatial
            axis.

    Returns:
        tuple: Basic-slicing keys for arrays ``(n, c, *padded)``, each
        selecting an ``(n, c, *out_size)`` view.
    """
    per_axis = [
        [slice(j, j + s * (o - 1) + 1, s) for j in range(k)]
        for k, s, o in zip(ksize, stride, out_size, strict=True)
    ]
    lead = (slice(None), slice(None))
    return tuple(lead + combo for combo in itertools.product(*per_axis))


# Window geometries seen lately: (ksize, stride, pad, pad_hi, in_size,
# out_size) -> (tap slices, padded spatial shape, disjoint).
_GEOMETRIES: dict = {}


def geometry(node, lead):
    """The window geometry of a pooling node whose ``setup_geometry`` has run.

    Args:
        node: A ``PoolingND`` node.
        lead (tuple of int): ``(n, c)``.

    Returns:
        tuple: ``(slices, padded_shape, disjoint)``: :func:`tap_slices`, the
        shape ``(n, c, *padded)`` holding the padded input and every window,
        and whether windows never overlap.
    """
    key = (node.ksize, node.stride, node.pad, node.pad_hi, node.in_size, node.out_size)
    found = _GEOMETRIES.get(key)
    if found is None:
        ksize, stride, pad_lo, pad_hi, in_size, out_size = key
        padded = tuple(
            size + lo + hi for size, lo, hi in zip(in_size, pad_lo, pad_hi, strict=True)
        )
        disjoint = all(s >= k for k, s in zip(ksize, stride, strict=True))
        found = (tap_slices(ksize, stride, out_size), padded, disjoint)
        if len(_GEOMETRIES) >= 256:
            _GEOMETRIES.clear()
        _GEOMETRIES[key] = found
    slices, padded, disjoint = found
    return slices, tuple(lead) + padded, disjoint


def reduce_windows(x, ksize, stride, out_size, op):
    """Reduces every window of the padded ``x`` with a binary ufunc, axis by axis.

    Windows are separable boxes: ``sum(ksize) - ndim`` array operations
    instead of ``prod(ksize) - 1``. The result takes the memory order of
    ``x`` (NumPy allocates ufunc outputs in their inputs' order).

    Returns:
        numpy.ndarray: New array ``(n, c, *out_size)``.
    """
    y = x
    fresh = False
    for axis, (k, s, o) in enumerate(zip(ksize, stride, out_size, strict=True), 2):
        head = (slice(None),) * axis
        span = s * (o - 1) + 1
        if k == 1:
            y = y[(*head, slice(0, span, s))]
            continue
        r = op(y[(*head, slice(0, span, s))], y[(*head, slice(1, 1 + span, s))])
        for j in range(2, k):
            op(r, y[(*head, slice(j, j + span, s))], out=r)
        y = r
        fresh = True
    return y if fresh else y.copy(order="K")


def alloc(shape, dtype, slices, disjoint, batch_innermost):
    """A buffer ``(n, c, *padded)`` for scattered windows, in the given memory order.

    Zeroed unless disjoint windows tile it exactly (then every element is
    written); with ``batch_innermost`` it lies in memory as
    ``(c, *padded, n)``.
    """
    last = slices[-1][2:]
    tiled = disjoint and all(
        key.stop == n and key.step == key.start + 1
        for key, n in zip(last, shape[2:], strict=True)
    )
    make = numpy.empty if tiled else numpy.zeros
    if batch_innermost and shape[0] > 1:
        nd = len(shape) - 2
        buf = make((shape[1], *shape[2:], shape[0]), dtype)
        return buf.transpose(nd + 1, 0, *range(1, nd + 1))
    return make(shape, dtype)


def scatter_windows(g, idx, slices, buf, disjoint):
    """Adds ``g`` at tap ``idx`` of each window of ``buf`` (stores if disjoint)."""
    for t, key in enumerate(slices):
        # A mask of g's dtype: mixed-dtype ufuncs writing to a strided view
        # fall back to buffered loops (3x slower on NumPy 1.x).
        hit = (idx == t).astype(g.dtype)
        if disjoint:
            numpy.multiply(g, hit, out=buf[key])
        else:
            hit *= g
            buf[key] += hit
    return buf


def spread_windows(g, slices, buf, disjoint):
    """Adds ``g`` to every tap of its window of ``buf`` (stores if disjoint)."""
    for key in slices:
        if disjoint:
            buf[key] = g
        else:
            buf[key] += g
    return buf


def crop(buf, pad_lo, size):
    """The unpadded part of ``buf`` as a dense array in the memory order of ``buf``.

    Returns:
        numpy.ndarray: ``buf`` itself when nothing is cut, else a copy,
        batch-innermost where ``buf`` is, else C-contiguous.
    """
    if buf.shape[2:] == tuple(size):
        return buf
    key = (
        slice(None),
        slice(None),
        *tuple(slice(p, p + n) for p, n in zip(pad_lo, size, strict=True)),
    )
    return in_order(buf[key], is_batch_innermost(buf))


def by_channels(fn, channels, nbytes):
    """Runs ``fn(start, stop)`` over channel ranges on the CPU team's threads.

    One range (the calling thread) below ``PARALLEL_BYTES`` or without a
    team; else one contiguous range of channels per thread.
    """
    _parallel.by_ranges(fn, channels, nbytes >= PARALLEL_BYTES)
