"""Memory layouts and GEMM helpers shared by chainer-cpu's NumPy kernels.

The convolution kernels give their outputs a *batch-innermost* memory order:
an array ``(n, c, *spatial)`` that lies in memory as ``(c, *spatial, n)``, so
that every kernel tap of every output row is one contiguous run (see
:mod:`chainer_cpu.functions.connection.convolution_nd`). Pooling and padding
keep it. The patch matrices have the layout that chainer-cuda's kernels use
as well: rows ``(c, k_1, ..., k_d)``, columns ``(n, o_1, ..., o_d)``.
"""

import numpy

from chainer.utils import conv
from chainer_cpu import _gemm
from chainer_cpu import _parallel


def is_batch_innermost(x):
    """Whether ``x`` ``(n, c, *spatial)`` is a C-contiguous ``(c, *spatial, n)`` array.

    chainer-cpu's convolutions give their outputs this memory order; pooling
    and padding keep it.
    """
    return x.ndim >= 3 and x.transpose(1, *range(2, x.ndim), 0).flags.c_contiguous


def as_batch_innermost(x):
    """Returns ``x`` ``(n, c, *spatial)`` as a C-contiguous ``(c, *spatial, n)`` array.

    A transposed view of ``x`` where :func:`is_batch_innermost` holds, else
    a copy.
    """
    return numpy.ascontiguousarray(x.transpose(1, *range(2, x.ndim), 0))


def is_channels_last(x):
    """Whether ``x`` ``(n, c, *spatial)``, 2+ channels, lies as ``(n, *spatial, c)``.

    oneDNN's convolutions give their outputs this memory order (``nhwc``);
    pooling, batch normalization and ReLU keep it. With one channel it is
    C order, and not counted.
    """
    if x.ndim < 3 or x.shape[1] < 2 or x.strides[1] != x.itemsize:
        return False
    return x.transpose(0, *range(2, x.ndim), 1).flags.c_contiguous


def empty_channels_last(shape, dtype, make=numpy.empty):
    """A new ``(n, c, *spatial)`` array stored channels-last (``make`` fills it)."""
    nd = len(shape) - 2
    buf = make((shape[0], *shape[2:], shape[1]), dtype)
    return buf.transpose(0, nd + 1, *range(1, nd + 1))


def copy_in_order(a, like):
    """``a`` copied into a new array of ``a``'s dtype in the memory order of ``like``.

    ``like`` has ``a``'s shape and is dense in some axis order (a
    channels-last or batch-innermost array, say).
    """
    out = numpy.empty_like(like, dtype=a.dtype)
    numpy.copyto(out, a)
    return out


#: From this many bytes, the copy of :func:`pad_batch_innermost` is split by
#: channel among the CPU team's threads.
PARALLEL_COPY_BYTES = 1 << 20


def pad_batch_innermost(x, pad_lo, pad_hi, pval=0):
    """Pads ``x`` ``(n, c, *spatial)`` into a C-contiguous ``(c, *padded, n)`` buffer.

    One copy whatever the layout of ``x``, split by channel among the CPU
    team's threads for large inputs; the buffer itself is returned.
    """
    nd = x.ndim - 2
    xt = x.transpose(1, *range(2, nd + 2), 0)
    padded = tuple(
        size + lo + hi
        for size, lo, hi in zip(xt.shape[1:-1], pad_lo, pad_hi, strict=True)
    )
    shape = (xt.shape[0], *padded, xt.shape[-1])
    buf = numpy.zeros(shape, x.dtype) if pval == 0 else numpy.full(shape, pval, x.dtype)
    inner = tuple(
        slice(lo, lo + size) for size, lo in zip(xt.shape[1:-1], pad_lo, strict=True)
    )

    def copy(c0, c1):
        buf[(slice(c0, c1), *inner, slice(None))] = xt[c0:c1]

    _parallel.by_ranges(copy, xt.shape[0], x.nbytes >= PARALLEL_COPY_BYTES)
    return buf


# A patch matrix of more than WHOLE_BYTES is built and multiplied in chunks
# of about CHUNK_BYTES (runs of output rows on the batch-innermost path,
# else parts of the batch): OpenBLAS multiplies a (c_O x 288) by a
# (288 x 3072) matrix at up to twice the rate of one (288 x 65536) matrix
# when c_O is 32-64 (2 threads). Several chunks are built before their GEMMs
# run: alternating a single-threaded copy with a 2-thread GEMM chunk by
# chunk keeps each chunk in cache, but on a shared 2-core VM it made the
# copies 4-5x slower at times (copies alone, and GEMMs alone, did not slow).
# VGG-style step of benchmarks/workloads/convnet_step.py, in-process A/B
# alternating per step, median over 50 steps / median of the quiet steps:
# alternating 274 / 192 ms, all chunks first 222 / 199, groups of 4 chunks
# 233 / 200. The LeNet layers (<= 8 MiB) are not chunked: more, smaller
# scatter-adds cost more there.
CHUNK_BYTES = 4 << 20
WHOLE_BYTES = 16 << 20


def batch_chunks(n, bytes_per_image):
    """Splits a batch into ``(start, stop)`` chunks of about CHUNK_BYTES."""
    if n * bytes_per_image <= WHOLE_BYTES:
        return [(0, n)]
    step = max(1, CHUNK_BYTES // max(1, bytes_per_image))
    return [(i, min(n, i + step)) for i in range(0, n, step)]


def is_pointwise(ksize, stride, pad):
    """Whether a window geometry reads single pixels, unit stride, no padding."""
    return all(k == 1 for k in ksize) and not any(pad) and all(s == 1 for s in stride)


def output_geometry(x, ksize, stride, pad, cover_all, dilate):
    """``(out_size, pad_hi)`` of a convolution over ``x``; raises if it is empty.

    :func:`chainer.utils.conv.conv_geometry` of ``x``'s spatial shape, with
    a ValueError naming the geometry when some output size is not positive.
    """
    out_size, pad_hi = conv.conv_geometry(
        x.shape[2:], ksize, stride, pad, cover_all, dilate
    )
    if min(out_size, default=1) <= 0:
        raise ValueError(
            f"the output would be empty {out_size} for spatial input size "
            f"{x.shape[2:]}, ksize {ksize}, stride {stride}, pad {pad}"
        )
    return out_size, pad_hi


def im2col_matrix(x, ksize, stride, pad, cover_all=False, dilate=None):
    """Builds the patch matrix of a convolution with one copy.

    Row ``(c, k_1, ..., k_d)`` and column ``(n, o_1, ..., o_d)`` hold the
    input element that kernel tap ``k`` of output position ``o`` reads, so a
    convolution is ``W.reshape(c_O, -1) @ col``, whose result has one row
    per output channel. The copy reads rows of the last spatial axis. For
    single-pixel windows with unit stride and no padding the matrix is a
    view of ``x`` when the memory layout of ``x`` allows it.

    Args:
        x (:ref:`ndarray`): Array of shape ``(n, c, *spatial)``.
        ksize, stride, pad (tuple of int): Per-axis filter size, stride and
            padding.
        cover_all (bool or tuple of bool): Chainer's ``cover_all`` option,
            for all axes or per axis.
        dilate (tuple of int or None): Per-axis dilation (1 if None).

    Returns:
        tuple: ``(col, out_size)``: the matrix of shape
        ``(c * prod(ksize), n * prod(out_size))`` and the output shape.

    Raises:
        ValueError: If some output size is not positive.
    """
    n, c = x.shape[:2]
    nd = len(ksize)
    if is_pointwise(ksize, stride, pad):
        return x.swapaxes(0, 1).reshape(c, -1), x.shape[2:]
    out_size, pad_hi = output_geometry(x, ksize, stride, pad, cover_all, dilate)
    view = conv.window_view(
        conv.pad_spatial(x, pad, pad_hi), ksize, stride, out_size, dilate
    )
    view = view.transpose(1, *range(2 + nd, 2 + 2 * nd), 0, *range(2, 2 + nd))
    col = numpy.ascontiguousarray(view).reshape(c * prod(ksize), n * prod(out_size))
    return col, out_size


def grouped_matmul(a, b, groups=1, transa=False, transb=False, out=None):
    """Multiplies matrices split into ``groups`` diagonal blocks.

    ``a`` and ``b`` are split into ``groups`` row blocks; block ``g`` of the
    result is ``op(a_g) @ op(b_g)``, stacked along the rows. One GEMM when
    ``groups == 1``. Float16 operands are multiplied in float32 (NumPy has
    no half-precision BLAS, and its half loop accumulates in half
    precision); the result keeps the operands' dtype.

    Args:
        a (:ref:`ndarray`): 2-d array whose rows split into ``groups``
            blocks.
        b (:ref:`ndarray`): 2-d array whose rows split into ``groups``
            blocks.
        groups (int): Number of blocks.
        transa (bool): Use the transpose of each block of ``a``.
        transb (bool): Use the transpose of each block of ``b``.
        out (:ref:`ndarray` or None): 2-d array to write the result into.

    Returns:
        :ref:`ndarray`: 2-d array of the stacked block products.
    """
    xp = numpy
    dtype = a.dtype
    half = dtype == xp.float16
    if half:
        a = a.astype(xp.float32)
        b = b.astype(xp.float32)
    if groups == 1:
        a = a.T if transa else a
        b = b.T if transb else b
        if out is None or half:
            y = _gemm.matmul(a, b)
        else:
            return _gemm.matmul(a, b, out=out)
    else:
        a3 = a.reshape(groups, a.shape[0] // groups, -1)
        b3 = b.reshape(groups, b.shape[0] // groups, -1)
        if transa:
            a3 = a3.swapaxes(1, 2)
        if transb:
            b3 = b3.swapaxes(1, 2)
        if out is not None and not half:
            xp.matmul(a3, b3, out=out.reshape(groups, -1, out.shape[1]))
            return out
        y = xp.matmul(a3, b3)
        y = y.reshape(y.shape[0] * y.shape[1], y.shape[2])
    if out is not None:
        out[...] = y
        return out
    if y.dtype != dtype:
        y = y.astype(dtype)
    return y


def prod(values):
    """Product of ints (1 for none)."""
    size = 1
    for v in values:
        size *= v
    return size
