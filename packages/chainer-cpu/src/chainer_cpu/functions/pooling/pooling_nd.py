"""NumPy window passes shared by chainer-cpu's pooling kernels.

The catalogue's pooling (:mod:`chainer.functions.pooling.pooling_nd`) works
tap by tap over strided views of the padded input; these helpers do the same
in the memory order of their input (:func:`order_of`). A batch-innermost
input (the output of chainer-cpu's NumPy convolutions, see
:mod:`chainer_cpu._layout`) gives padded buffers, outputs and gradients that
are batch-innermost too, so that the next convolution's patch copies stay
long contiguous runs; a channels-last one (memory ``(n, *spatial, c)``, what
oneDNN's ``nhwc`` convolutions take and give) gives channels-last ones;
anything else gives C-contiguous arrays. From the pooling nodes they read
only documented attributes: ``ksize``, ``stride``, ``pad``, ``pad_hi``,
``in_size`` and ``out_size``.

On channels-last arrays every tap of a window is a run of ``c`` contiguous
elements, and the reduction over the first spatial axis reads whole rows
``(w, c)``: the window passes need no copy into another order. Work is split
among the CPU team's threads by image there (the outermost axis in memory),
by channel in the other orders.
"""

import functools
import itertools

import numpy

from chainer.utils import conv
from chainer_cpu import _layout
from chainer_cpu import _parallel

#: From this many bytes of input gradient, the window scatter is split among
#: the CPU team's threads (:func:`split`; LeNet's first pooling layer,
#: 2.9 MB: 1.0 -> 0.73 ms on two vCPUs).
PARALLEL_BYTES = 1 << 20


#: The memory orders that the window passes keep (see :func:`order_of`).
C_ORDER = "c"
BATCH_INNERMOST = "batch_innermost"
CHANNELS_LAST = "channels_last"


def is_batch_innermost(x):
    """Whether ``x`` is a batch of two or more lying in memory as ``(c, *spatial, n)``.

    For a batch of one both memory orders are the same, and C order is taken.
    """
    # The stride test first: it answers C-order arrays at once (this runs on
    # every pooling call).
    if x.shape[0] < 2 or x.strides[0] != x.itemsize:
        return False
    return x.transpose(_batch_last(x.ndim)).flags.c_contiguous


def order_of(x):
    """The memory order that the window passes keep for ``x`` ``(n, c, *spatial)``.

    Returns:
        str: :data:`BATCH_INNERMOST`, :data:`C_ORDER` (C-contiguous arrays,
        and any order not named here) or :data:`CHANNELS_LAST`, tested in
        this order.
    """
    if is_batch_innermost(x):
        return BATCH_INNERMOST
    if not x.flags.c_contiguous and _layout.is_channels_last(x):
        return CHANNELS_LAST
    return C_ORDER


def in_order(x, order):
    """``x`` ``(n, c, *spatial)`` in the memory order ``order`` (copied if not).

    A batch of one is never batch-innermost, one channel never channels-last:
    C order is taken there.
    """
    if order == BATCH_INNERMOST and x.shape[0] > 1:
        if is_batch_innermost(x):
            return x
        nd = x.ndim - 2
        return _layout.as_batch_innermost(x).transpose(nd + 1, 0, *range(1, nd + 1))
    if order == CHANNELS_LAST and x.shape[1] > 1:
        if _layout.is_channels_last(x):
            return x
        nd = x.ndim - 2
        dense = numpy.ascontiguousarray(x.transpose(0, *range(2, x.ndim), 1))
        return dense.transpose(0, nd + 1, *range(1, nd + 1))
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
        dense (bool): Copy an unpadded ``x`` whose order :func:`order_of`
            does not name into C order (the window passes over a
            channel-major view of a transposed array run 1.8x faster on the
            copy: LeNet's second pooling layer, forward and backward, one
            thread).

    Returns:
        numpy.ndarray: A new array in the order of ``x`` (batch-innermost,
        channels-last, else C-contiguous) if ``x`` is padded, else ``x``
        itself (or its dense copy).
    """
    if not any(pad_lo) and not any(pad_hi):
        if dense and not x.flags.c_contiguous and order_of(x) == C_ORDER:
            return numpy.ascontiguousarray(x)
        return x
    order = order_of(x)
    nd = x.ndim - 2
    if order == BATCH_INNERMOST:
        buf = _layout.pad_batch_innermost(x, pad_lo, pad_hi, pval)
        return buf.transpose(nd + 1, 0, *range(1, nd + 1))
    if order == CHANNELS_LAST:
        return _pad_channels_last(x, pad_lo, pad_hi, pval)
    return conv.pad_spatial(x, pad_lo, pad_hi, pval)


def _pad_channels_last(x, pad_lo, pad_hi, pval):
    # A new channels-last (n, c, *padded) array, filled and copied image by
    # image on the CPU team's threads for large inputs.
    nd = x.ndim - 2
    xt = x.transpose(0, *range(2, x.ndim), 1)
    padded = tuple(
        size + lo + hi for size, lo, hi in zip(x.shape[2:], pad_lo, pad_hi, strict=True)
    )
    buf = numpy.empty((x.shape[0], *padded, x.shape[1]), x.dtype)
    inner = tuple(
        slice(lo, lo + size) for size, lo in zip(x.shape[2:], pad_lo, strict=True)
    )

    def fill(n0, n1):
        buf[n0:n1] = pval
        buf[(slice(n0, n1), *inner)] = xt[n0:n1]

    _parallel.by_ranges(fill, x.shape[0], x.nbytes >= _layout.PARALLEL_COPY_BYTES)
    return buf.transpose(0, nd + 1, *range(1, nd + 1))


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


def reduce_windows(x, ksize, stride, out_size, op, out=None):
    """Reduces every window of the padded ``x`` with a binary ufunc, axis by axis.

    Windows are separable boxes: ``sum(ksize) - ndim`` array operations
    instead of ``prod(ksize) - 1``. The result takes the memory order of
    ``x`` (NumPy allocates ufunc outputs in their inputs' order).

    Args:
        x (numpy.ndarray): Padded array ``(n, c, *padded)``.
        ksize, stride, out_size (tuple of int): Window geometry.
        op (numpy.ufunc): ``maximum`` or ``add``.
        out (numpy.ndarray or None): Array ``(n, c, *out_size)`` to write
            the result into.

    Returns:
        numpy.ndarray: ``out``, or a new array ``(n, c, *out_size)``.
    """
    # Axes with one tap are only strided, all at once; the last reduction
    # writes into out.
    head = (slice(None), slice(None))
    y = x[
        head
        + tuple(
            slice(0, s * (o - 1) + 1, s) if k == 1 else slice(None)
            for k, s, o in zip(ksize, stride, out_size, strict=True)
        )
    ]
    reduced = [i for i, k in enumerate(ksize) if k > 1]
    if not reduced:
        if out is None:
            return y.copy(order="K")
        out[...] = y
        return out
    for i in reduced:
        k, s, o = ksize[i], stride[i], out_size[i]
        lead = (slice(None),) * (2 + i)
        span = s * (o - 1) + 1
        r = op(
            y[(*lead, slice(0, span, s))],
            y[(*lead, slice(1, 1 + span, s))],
            out=out if i == reduced[-1] else None,
        )
        for j in range(2, k):
            op(r, y[(*lead, slice(j, j + span, s))], out=r)
        y = r
    return y


def pool_windows(x, ksize, stride, out_size, op):
    """:func:`reduce_windows` of ``x``, split by image for large channels-last ones.

    The images of a channels-last ``x`` of ``PARALLEL_BYTES`` or more are
    reduced on the CPU team's threads (VGG's first pooling layer, 8 MB of
    float32: 1.37 -> 0.80 ms on 2 threads of a 2-vCPU Xeon, NumPy 2.4); the
    other orders keep the single pass (unchanged).
    """
    if (
        x.nbytes < PARALLEL_BYTES
        or x.shape[0] < 2
        or _parallel.width() < 2
        or order_of(x) != CHANNELS_LAST
    ):
        return reduce_windows(x, ksize, stride, out_size, op)
    y = _layout.empty_channels_last((*x.shape[:2], *out_size), x.dtype)

    def reduce(part):
        reduce_windows(x[part], ksize, stride, out_size, op, out=y[part])

    split(reduce, x.shape[:2], CHANNELS_LAST, x.nbytes)
    return y


def alloc(shape, dtype, slices, disjoint, order):
    """A buffer ``(n, c, *padded)`` for scattered windows, in memory order ``order``.

    Zeroed unless disjoint windows tile it exactly (then every element is
    written). :data:`BATCH_INNERMOST` lies in memory as ``(c, *padded, n)``
    and :data:`CHANNELS_LAST` as ``(n, *padded, c)`` (C order for a batch of
    one, respectively one channel).
    """
    last = slices[-1][2:]
    tiled = disjoint and all(
        key.stop == n and key.step == key.start + 1
        for key, n in zip(last, shape[2:], strict=True)
    )
    make = numpy.empty if tiled else numpy.zeros
    nd = len(shape) - 2
    if order == BATCH_INNERMOST and shape[0] > 1:
        buf = make((shape[1], *shape[2:], shape[0]), dtype)
        return buf.transpose(nd + 1, 0, *range(1, nd + 1))
    if order == CHANNELS_LAST and shape[1] > 1:
        return _layout.empty_channels_last(shape, dtype, make)
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
        batch-innermost or channels-last where ``buf`` is, else C-contiguous.
    """
    if buf.shape[2:] == tuple(size):
        return buf
    key = (
        slice(None),
        slice(None),
        *tuple(slice(p, p + n) for p, n in zip(pad_lo, size, strict=True)),
    )
    return in_order(buf[key], order_of(buf))


def split(fn, lead, order, nbytes):
    """Runs ``fn(part)`` over parts of ``(n, c, ...)`` arrays on the CPU team's threads.

    ``part`` is a basic-slicing key: a range of images for
    :data:`CHANNELS_LAST` (a batch of one: of channels), whose images are
    contiguous blocks, else a range of channels. One part (the calling
    thread) below ``PARALLEL_BYTES`` or without a team; else one per thread.

    Args:
        fn (callable): Called with each part's key.
        lead (tuple of int): ``(n, c)`` of the arrays.
        order (str): Their memory order (:func:`order_of`).
        nbytes (int): The size that decides whether to split.
    """
    parallel = nbytes >= PARALLEL_BYTES
    if order == CHANNELS_LAST and lead[0] > 1:
        _parallel.by_ranges(lambda a, b: fn((slice(a, b),)), lead[0], parallel)
    else:
        _parallel.by_ranges(
            lambda a, b: fn((slice(None), slice(a, b))), lead[1], parallel
        )
