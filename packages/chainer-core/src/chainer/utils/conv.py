"""Geometry, window helpers and GEMM kernels of convolutions (``chainer.utils.conv``).

Output sizes (:func:`get_conv_outsize`, :func:`get_deconv_outsize`), strided
window views and their adjoint (:func:`im2col_nd`, :func:`col2im_nd`, used
by pooling too), and the array-level convolution kernels that the
convolution and deconvolution functions share (:func:`convolution_forward`,
:func:`convolution_grad_weight`, :func:`deconvolution_forward`). Every
helper works on the array module of its input (NumPy or a GPU backend with
NumPy's stride API), on arrays laid out as ``(n, c, *spatial)``.
"""

from __future__ import annotations

import itertools

import numpy

from chainer import backend
from chainer.utils import _blas
from chainer.utils import _parallel
from chainer.utils import type_check


class OutputSizeError(type_check.InvalidType, AssertionError):
    """Raised when a convolution's or pooling's output would have no element.

    An extension of this project. Chainer asserts that output sizes are
    positive, so the error is an ``AssertionError`` as well as an
    :class:`~chainer.utils.type_check.InvalidType` like the other input
    checks (an assert would vanish under ``python -O``).
    """


def get_conv_outsize(size, k, s, p, cover_all=False, d=1):
    """Returns the output length of a convolution or pooling along one axis.

    .. math:: o = \\lfloor (size + 2p - d_k) / s \\rfloor + 1,
        \\quad d_k = k + (k - 1)(d - 1)

    With ``cover_all`` the numerator gets ``s - 1`` more, so that the last
    window covers the last input element.

    Args:
        size (int): Input length.
        k (int): Filter (window) size.
        s (int): Stride.
        p (int): Zero padding on each side.
        cover_all (bool): Whether every input element must be covered.
        d (int): Dilation.

    Returns:
        int: The output length (may be non-positive for too small inputs).
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(size, k, s, p, cover_all=False, d=1):
    """Returns the output length of a deconvolution along one axis.

    It inverts :func:`get_conv_outsize`:
    :math:`o = s (size - 1) + d_k - 2p`, minus ``s - 1`` with ``cover_all``.

    Args:
        size (int): Input length.
        k (int): Filter size.
        s (int): Stride.
        p (int): Padding removed on each side.
        cover_all (bool): Whether the matching convolution used cover_all.
        d (int): Dilation.

    Returns:
        int: The output length.
    """
    dk = (k - 1) * d + 1
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


def as_tuple(x, n, name="argument"):
    """Normalises an int or a length-``n`` sequence to a tuple of ``n`` ints.

    Args:
        x (int or sequence of int): The value.
        n (int): Required length.
        name (str): Argument name used in the error message.

    Returns:
        tuple of int: ``(x,) * n`` for an int, ``tuple(x)`` otherwise.

    Raises:
        ValueError: If a sequence has the wrong length.
    """
    if isinstance(x, (tuple, list)):
        if len(x) != n:
            raise ValueError(
                f"{name} must be an int or a sequence of {n} ints, got {x!r}"
            )
        return tuple(int(v) for v in x)
    return (int(x),) * n


def pad_spatial(x, pad_lo, pad_hi, pval=0):
    """Pads the spatial axes (all axes after the first two) of ``x``.

    Allocates the result once and copies ``x`` into it (no ``numpy.pad``);
    ``x`` itself is returned when all widths are zero.

    Args:
        x (:ref:`ndarray`): Array of shape ``(n, c, *spatial)``.
        pad_lo (tuple of int): Width added before each spatial axis.
        pad_hi (tuple of int): Width added after each spatial axis.
        pval (scalar): Padding value.

    Returns:
        :ref:`ndarray`: The padded array.
    """
    if not any(pad_lo) and not any(pad_hi):
        return x
    xp = backend.get_array_module(x)
    if xp is numpy and x.shape[0] > 1 and is_batch_innermost(x):
        nd = x.ndim - 2
        buf = _pad_batch_innermost(x, pad_lo, pad_hi, pval)
        return buf.transpose(nd + 1, 0, *range(1, nd + 1))
    shape = x.shape[:2] + tuple(
        size + lo + hi for size, lo, hi in zip(x.shape[2:], pad_lo, pad_hi, strict=True)
    )
    # Zero padding from calloc'ed pages costs nothing until touched.
    out = xp.zeros(shape, x.dtype) if pval == 0 else xp.full(shape, pval, x.dtype)
    inner = tuple(
        slice(lo, lo + size) for size, lo in zip(x.shape[2:], pad_lo, strict=True)
    )
    out[(slice(None), slice(None), *inner)] = x
    return out


def is_batch_innermost(x):
    """Whether ``x`` ``(n, c, *spatial)`` is a C-contiguous ``(c, *spatial, n)`` array.

    NumPy convolutions give their outputs this memory order (see
    :func:`convolution_forward`); pooling and padding keep it.
    """
    return x.ndim >= 3 and x.transpose(1, *range(2, x.ndim), 0).flags.c_contiguous


def as_batch_innermost(x):
    """Returns ``x`` ``(n, c, *spatial)`` as a C-contiguous ``(c, *spatial, n)`` array.

    A transposed view of ``x`` where :func:`is_batch_innermost` holds, else
    a copy.
    """
    xp = backend.get_array_module(x)
    return xp.ascontiguousarray(x.transpose(1, *range(2, x.ndim), 0))


def _pad_batch_innermost(x, pad_lo, pad_hi, pval=0):
    # x (n, c, *spatial) padded into a C-contiguous (c, *padded, n) buffer,
    # returned as that buffer (one copy whatever the layout of x).
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
    buf[(slice(None), *inner, slice(None))] = xt
    return buf


def window_view(x, ksize, stride, out_size, dilate=None):
    """Returns a strided view of all filter windows of ``x``; nothing is copied.

    Window ``(o_1, ..., o_d)`` starts at ``o_i * stride_i`` and its element
    ``(k_1, ..., k_d)`` is ``x[..., o_i * stride_i + k_i * dilate_i, ...]``.
    The caller ensures every window lies inside ``x`` (pad it first).

    Args:
        x (:ref:`ndarray`): Array of shape ``(n, c, *spatial)``.
        ksize (tuple of int): Window size per spatial axis.
        stride (tuple of int): Stride per spatial axis.
        out_size (tuple of int): Number of windows per spatial axis.
        dilate (tuple of int or None): Dilation per spatial axis (1 if None).

    Returns:
        :ref:`ndarray`: A read-only view of shape ``(n, c, *out_size, *ksize)``.
    """
    xp = backend.get_array_module(x)
    st = x.strides[2:]
    if dilate is None:
        dilate = (1,) * len(ksize)
    strides = (
        x.strides[:2]
        + tuple(a * s for a, s in zip(st, stride, strict=True))
        + tuple(a * d for a, d in zip(st, dilate, strict=True))
    )
    shape = x.shape[:2] + tuple(out_size) + tuple(ksize)
    if xp is not numpy:
        # CuPy's as_strided has no ``writeable`` flag; its views stay writable.
        return xp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)
    return xp.lib.stride_tricks.as_strided(
        x, shape=shape, strides=strides, writeable=False
    )


def conv_geometry(in_size, ksize, stride, pad, cover_all=False, dilate=None):
    """Computes output sizes and the padding a window view needs.

    Args:
        in_size (tuple of int): Spatial input shape.
        ksize, stride, pad (tuple of int): Per-axis filter size, stride and
            padding.
        cover_all (bool or tuple of bool): Chainer's ``cover_all`` option,
            for all axes or per axis.
        dilate (tuple of int or None): Per-axis dilation (1 if None).

    Returns:
        tuple: ``(out_size, pad_hi)``: the output shape and the padding after
        each axis that keeps every window in bounds (``pad`` goes before;
        ``pad_hi`` may be smaller than ``pad`` when windows stop short of the
        end, and larger with ``cover_all``).
    """
    if dilate is None:
        dilate = (1,) * len(ksize)
    if not isinstance(cover_all, (tuple, list)):
        cover_all = (cover_all,) * len(ksize)
    out_size = []
    pad_hi = []
    for size, k, s, p, d, ca in zip(
        in_size, ksize, stride, pad, dilate, cover_all, strict=True
    ):
        o = get_conv_outsize(size, k, s, p, ca, d)
        out_size.append(o)
        pad_hi.append(max(0, (o - 1) * s + (k - 1) * d + 1 - size - p))
    return tuple(out_size), tuple(pad_hi)


def im2col_nd(x, ksize, stride, pad, cover_all=False, dilate=None, pval=0):
    """Pads ``x`` and returns the view of its filter windows.

    Only the padding copies data; the result is a strided view.

    Args:
        x (:ref:`ndarray`): Array of shape ``(n, c, *spatial)``.
        ksize, stride, pad (tuple of int): Per-axis filter size, stride and
            padding.
        cover_all (bool or tuple of bool): Chainer's ``cover_all`` option,
            for all axes or per axis.
        dilate (tuple of int or None): Per-axis dilation (1 if None).
        pval (scalar): Value read in the padding.

    Returns:
        :ref:`ndarray`: Read-only view of shape ``(n, c, *out_size, *ksize)``.

    Raises:
        ValueError: If some output size is not positive.
    """
    out_size, pad_hi = conv_geometry(x.shape[2:], ksize, stride, pad, cover_all, dilate)
    if min(out_size, default=1) <= 0:
        raise ValueError(
            f"the output would be empty {out_size} for spatial input size "
            f"{x.shape[2:]}, ksize {ksize}, stride {stride}, pad {pad}"
        )
    x = pad_spatial(x, pad, pad_hi, pval)
    return window_view(x, ksize, stride, out_size, dilate)


def _padded_extent(in_size, out_size, ksize, stride, pad, dilate):
    # Size per axis of a buffer holding the padded image and every window.
    return tuple(
        max(size + p, (o - 1) * s + (k - 1) * d + 1)
        for size, o, k, s, p, d in zip(
            in_size, out_size, ksize, stride, pad, dilate, strict=True
        )
    )


def _add_windows(img, blocks, ksize, stride, dilate, out_size, trail=0):
    # Adds the block of every kernel tap onto its strided region of the
    # padded buffer ``img`` (spatial axes last but ``trail``); ``blocks(tap)``
    # gives it.
    lead = (slice(None),) * (img.ndim - len(ksize) - trail)
    for tap in itertools.product(*(range(k) for k in ksize)):
        dst = tuple(
            slice(t * d, t * d + s * (o - 1) + 1, s)
            for t, d, s, o in zip(tap, dilate, stride, out_size, strict=True)
        )
        img[lead + dst] += blocks(tap)


def col2im_nd(col, stride, pad, in_size, dilate=None):
    """Sums windows back onto the image: the adjoint of :func:`im2col_nd`.

    Loops over kernel positions only (``prod(ksize)`` strided additions of
    whole ``(n, c, *out_size)`` blocks).

    Args:
        col (:ref:`ndarray`): Array of shape ``(n, c, *out_size, *ksize)``.
        stride, pad (tuple of int): Per-axis stride and padding.
        in_size (tuple of int): Spatial shape of the image to produce.
        dilate (tuple of int or None): Per-axis dilation (1 if None).

    Returns:
        :ref:`ndarray`: Array of shape ``(n, c, *in_size)``, dtype of ``col``
        (a view into the padded sum buffer when ``pad`` is not zero).
    """
    nd = len(in_size)
    out_size = col.shape[2 : 2 + nd]
    ksize = col.shape[2 + nd :]
    dilate = (1,) * nd if dilate is None else dilate
    xp = backend.get_array_module(col)
    padded = _padded_extent(in_size, out_size, ksize, stride, pad, dilate)
    img = xp.zeros(col.shape[:2] + padded, col.dtype)
    rest = (slice(None),) * (2 + nd)
    _add_windows(img, lambda tap: col[rest + tap], ksize, stride, dilate, out_size)
    inner = tuple(slice(p, p + size) for p, size in zip(pad, in_size, strict=True))
    return img[(slice(None), slice(None), *inner)]


# A patch matrix of more than _WHOLE_BYTES is built and multiplied in chunks
# of about _CHUNK_BYTES (runs of output rows on the batch-innermost path,
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
_CHUNK_BYTES = 4 << 20
_WHOLE_BYTES = 16 << 20
# NumPy inputs that are not batch-innermost take the batch-innermost path
# (after one transposing copy) up to this size only: the copy of a larger
# C-order input costs more than the path saves (6 ms for a (64, 32, 32, 32)
# float32 array, whose convolution then took 27 ms instead of 19).
_TRANSPOSE_BYTES = 1 << 20
# With a CPU team (chainer.utils._parallel), batch-innermost convolutions run
# in items of about this many bytes of patch matrix (at least one output row
# each, and at least one item per thread), each copied and multiplied by one
# thread, and their patch matrices are built again for the weight gradient
# instead of kept (_REBUILD_PATCHES). VGG-style step of
# benchmarks/workloads/convnet_step.py, in-process A/B alternating per step
# (2 cores, 2026-11-23): with the team 151.3 ms median against 167.9
# without (38 of 40 steps faster; the LeNet-style step 14.1 vs 14.3 ms, 82
# of 120); rebuilding against keeping the patch matrices 152.7 vs 158.0 ms
# (27 of 30); items of 0.5 or 2 MiB no faster than 1 MiB.
_ITEM_BYTES = 1 << 20
_REBUILD_PATCHES = True


def _batch_chunks(n, bytes_per_image):
    if n * bytes_per_image <= _WHOLE_BYTES:
        return [(0, n)]
    step = max(1, _CHUNK_BYTES // max(1, bytes_per_image))
    return [(i, min(n, i + step)) for i in range(0, n, step)]


def _is_pointwise(ksize, stride, pad):
    return all(k == 1 for k in ksize) and not any(pad) and all(s == 1 for s in stride)


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
    if _is_pointwise(ksize, stride, pad):
        return x.swapaxes(0, 1).reshape(c, -1), x.shape[2:]
    out_size, pad_hi = conv_geometry(x.shape[2:], ksize, stride, pad, cover_all, dilate)
    if min(out_size, default=1) <= 0:
        raise ValueError(
            f"the output would be empty {out_size} for spatial input size "
            f"{x.shape[2:]}, ksize {ksize}, stride {stride}, pad {pad}"
        )
    view = window_view(pad_spatial(x, pad, pad_hi), ksize, stride, out_size, dilate)
    view = view.transpose(1, *range(2 + nd, 2 + 2 * nd), 0, *range(2, 2 + nd))
    xp = backend.get_array_module(x)
    col = xp.ascontiguousarray(view).reshape(c * _prod(ksize), n * _prod(out_size))
    return col, out_size


def convolution_forward(
    x, W, b=None, stride=None, pad=None, cover_all=False, dilate=None, groups=1,
    keep_col=False,
):  # fmt: skip
    """Computes a convolution as GEMMs of the filters with patch matrices.

    On NumPy, an input that lies in memory as ``(c_I, *spatial, n)`` (the
    output of an earlier convolution, see :func:`is_batch_innermost`) or
    that is small (up to 1 MiB, such as a batch of images; one transposing
    copy) gives an output that lies in memory likewise, as
    ``(c_O, *out_size, n)``. Each kernel tap of each output row is then one
    contiguous run of ``o_2 * ... * o_N * n`` elements, so building the
    patch matrices takes a few long copies instead of one short copy per
    image row (the VGG-style step of ``benchmarks/`` 6 % and the LeNet-style
    step 14 % faster than with channel-major outputs; in-process A/B,
    2026-11-23). The patch matrices are built for runs of output rows of
    about 4 MiB and kept as a :class:`RowChunks`; with a CPU team (see
    ``chainer.utils._parallel``) each thread copies and multiplies runs of
    about 1 MiB in turn, and the :class:`RowChunks` rebuilds them for the
    weight gradient instead of keeping them. Otherwise (larger inputs
    in other memory orders, other backends) the patch matrix of
    :func:`im2col_matrix` is built and multiplied in chunks of the batch,
    and the output has its channel axis outermost in memory.

    Args:
        x (:ref:`ndarray`): Input of shape ``(n, c_I, *spatial)``.
        W (:ref:`ndarray`): Filters of shape ``(c_O, c_I / groups, *ksize)``
            with the dtype of ``x``.
        b (:ref:`ndarray` or None): Bias of shape ``(c_O,)``.
        stride, pad (tuple of int): Per-axis stride and padding.
        cover_all (bool or tuple of bool): Chainer's ``cover_all`` option.
        dilate (tuple of int or None): Per-axis dilation (1 if None).
        groups (int): Number of channel groups.
        keep_col (bool): Also return the patch matrices (for the weight
            gradient).

    Returns:
        tuple: ``(y, cols)``: the output of shape ``(n, c_O, *out_size)`` (a
        view of a ``(c_O, *out_size, n)`` buffer on the batch-innermost
        path, of a ``(c_O, n, *out_size)`` one otherwise) and, with
        ``keep_col``, the patch matrices: a :class:`RowChunks` on the
        batch-innermost path, otherwise a list of
        ``(start, stop, col)``, the patch matrix of each chunk
        ``x[start:stop]`` of the batch (None without ``keep_col``).
    """
    xp = backend.get_array_module(x)
    if (
        xp is numpy
        and x.ndim > 2
        and (x.nbytes <= _TRANSPOSE_BYTES or is_batch_innermost(x))
    ):
        return _batch_innermost_forward(
            x, W, b, stride, pad, cover_all, dilate, groups, keep_col
        )
    n = x.shape[0]
    ksize = W.shape[2:]
    out_channels = W.shape[0]
    w2 = W.reshape(out_channels, -1)
    out_size, _ = conv_geometry(x.shape[2:], ksize, stride, pad, cover_all, dilate)
    size = _prod(out_size)
    chunks = _batch_chunks(n, w2.shape[1] * size * x.itemsize)
    cols = []
    if len(chunks) == 1 or _is_pointwise(ksize, stride, pad):
        col, out_size = im2col_matrix(x, ksize, stride, pad, cover_all, dilate)
        y = grouped_matmul(w2, col, groups)
        cols.append((0, n, col))
    else:
        y = xp.empty((out_channels, n * size), x.dtype)

        def patches(i, j):
            return im2col_matrix(x[i:j], ksize, stride, pad, cover_all, dilate)[0]

        _multiply_chunks(
            chunks, patches, w2, groups, y, size,
            w2.shape[1] * size * x.itemsize * (chunks[0][1] - chunks[0][0]),
            cols if keep_col else None,
        )  # fmt: skip
    if b is not None:
        y += b[:, None]
    y = y.reshape(out_channels, n, *out_size).swapaxes(0, 1)
    return y, (cols if keep_col else None)


def _multiply_chunks(chunks, patches, w2, groups, out, unit, chunk_bytes, cols):
    # For each chunk (start, stop), patches(start, stop) is its patch
    # matrix and columns start * unit to stop * unit of ``out`` its product
    # with ``w2``. The patch matrices are built first, then their GEMMs run
    # back to back (see _CHUNK_BYTES on why they do not alternate): all of
    # them when they are kept (appended to the list ``cols``), else
    # _WHOLE_BYTES of them at a time (``cols`` None).
    per_group = len(chunks)
    if cols is None:
        per_group = max(1, _WHOLE_BYTES // max(1, chunk_bytes))
    for g in range(0, len(chunks), per_group):
        group = [(i, j, patches(i, j)) for i, j in chunks[g : g + per_group]]
        for i, j, col in group:
            grouped_matmul(w2, col, groups, out=out[:, i * unit : j * unit])
        if cols is not None:
            cols.extend(group)


class RowChunks(list):
    """Patch matrices of a batch-innermost convolution, by output rows.

    Items are ``(start, stop, col)``: the patch matrix of output rows
    ``start:stop`` (first spatial axis) of every image, with columns
    ``(o_1, ..., o_N, n)``, or None where ``rebuild(start, stop)`` builds it
    again from the input.
    """

    rebuild = None


def _batch_innermost_forward(x, W, b, stride, pad, cover_all, dilate, groups, keep_col):
    # convolution_forward on NumPy: the input read as (c, *spatial, n) (a
    # view for outputs of earlier convolutions, else one transposing copy),
    # so that each kernel tap of each output row is one contiguous run of
    # (o_2 * ... * o_N * n) elements; chunks are runs of output rows. The
    # output lies in memory as (c_O, *out_size, n).
    n, channels = x.shape[:2]
    nd = x.ndim - 2
    ksize = W.shape[2:]
    dilate = (1,) * nd if dilate is None else tuple(dilate)
    out_channels = W.shape[0]
    w2 = W.reshape(out_channels, -1)
    out_size, pad_hi = conv_geometry(x.shape[2:], ksize, stride, pad, cover_all, dilate)
    if min(out_size, default=1) <= 0:
        raise ValueError(
            f"the output would be empty {out_size} for spatial input size "
            f"{x.shape[2:]}, ksize {ksize}, stride {stride}, pad {pad}"
        )
    _parallel.engage()  # first use: team, BLAS and malloc set-up
    threads = _parallel.width()
    # Per-tap GEMMs only without a CPU team: with one, patch matrices copied
    # and multiplied by each thread in turn are faster (VGG-style step
    # 174.1 vs 183.1 ms median, 27 of 40 steps).
    if (
        not keep_col
        and threads <= 1
        and _shift_applies(x, ksize, stride, pad, groups, out_size)
    ):
        gemm = _blas.gemm_function(x.dtype)
        if gemm is not None:
            return _shift_forward(gemm, x, W, b, pad, pad_hi, dilate, out_size), None
    if any(pad) or any(pad_hi):
        xb = _pad_batch_innermost(x, pad, pad_hi)
    else:
        xb = as_batch_innermost(x)
    rows = channels * _prod(ksize)
    row_size = _prod(out_size[1:]) * n
    y = numpy.empty((out_channels, *out_size, n), x.dtype)
    y2 = y.reshape(out_channels, -1)
    cols = RowChunks()
    if _is_pointwise(ksize, stride, pad):
        col = xb.reshape(channels, -1)
        grouped_matmul(w2, col, groups, out=y2)
        cols.append((0, out_size[0], col))
    else:
        st = xb.strides

        def patches(start, stop):
            view = numpy.lib.stride_tricks.as_strided(
                xb[:, start * stride[0] :],
                shape=(channels, *ksize, stop - start, *out_size[1:], n),
                strides=(
                    st[0],
                    *(a * d for a, d in zip(st[1:-1], dilate, strict=True)),
                    *(a * s for a, s in zip(st[1:-1], stride, strict=True)),
                    st[-1],
                ),
                writeable=False,
            )
            return numpy.ascontiguousarray(view).reshape(rows, -1)

        per_row = rows * row_size * x.itemsize
        if not per_row:
            threads = 1
        if threads > 1:
            step = max(1, min(_ITEM_BYTES // per_row, -(-out_size[0] // threads)))
        elif out_size[0] * per_row <= _WHOLE_BYTES:
            step = out_size[0]
        else:
            step = max(1, _CHUNK_BYTES // per_row)
        chunks = [(r, min(out_size[0], r + step)) for r in range(0, out_size[0], step)]
        if threads > 1 and len(chunks) > 1:
            keep = keep_col and not _REBUILD_PATCHES

            def item(k):
                start, stop = chunks[k]
                out = y2[:, start * row_size : stop * row_size]
                col = patches(start, stop)
                grouped_matmul(w2, col, groups, out=out)
                return (start, stop, col if keep else None)

            kept = _parallel.run(item, len(chunks))
            if keep_col:
                cols.rebuild = patches
                cols.extend(kept)
        else:
            _multiply_chunks(
                chunks, patches, w2, groups, y2, row_size, step * per_row,
                cols if keep_col else None,
            )  # fmt: skip
    if b is not None:
        y += b.reshape((-1,) + (1,) * (nd + 1))
    return y.transpose(nd + 1, 0, *range(1, nd + 1)), (cols if keep_col else None)


def _shift_applies(x, ksize, stride, pad, groups, out_size):
    # Whether _shift_forward takes this convolution: 2-d, unit strides, one
    # group, float32/64, a filter larger than one pixel, and padded rows at
    # most 1/8 wider than the output rows (the GEMMs also compute the
    # columns in between).
    if x.ndim != 4 or groups != 1 or x.shape[0] == 0 or x.dtype.char not in "fd":
        return False
    if any(s != 1 for s in stride) or all(k == 1 for k in ksize):
        return False
    padded_width = x.shape[3] + 2 * pad[1]
    return 8 * padded_width <= 9 * out_size[1]


def _shift_forward(gemm, x, W, b, pad, pad_hi, dilate, out_size):
    # A unit-stride 2-d convolution without a patch matrix: with the padded
    # input as a (c, h_p + 1, w_p, n) buffer, the input that kernel tap
    # (i, j) reads for all output positions (o_1, o_2') with o_2' < w_p is
    # one contiguous run per channel, starting (i d_1 w_p + j d_2) n
    # elements in. So the output, computed w_p wide, is the sum over taps of
    # GEMMs W[:, :, i, j] @ run, accumulated by the BLAS (beta = 1), and its
    # first o_2 columns are the result (the others read into the next row;
    # the spare row keeps the last tap in the buffer). No patch copies: the
    # input gradients of the VGG-style step's 32x32 and 16x16 layers run
    # 20-25 % faster than with patch matrices (2026-11-23).
    n, channels = x.shape[:2]
    out_channels = W.shape[0]
    kh, kw = W.shape[2:]
    xb = _pad_batch_innermost(x, pad, (pad_hi[0] + 1, pad_hi[1]))
    rows, width = xb.shape[1:3]
    taps = numpy.ascontiguousarray(W.transpose(2, 3, 0, 1))
    out_h, out_w = out_size
    wide = numpy.empty((out_channels, out_h, width, n), x.dtype)
    size = out_h * width * n
    plane = rows * width * n
    for i in range(kh):
        for j in range(kw):
            gemm(
                out_channels, size, channels, taps, channels, xb, plane,
                0.0 if i == j == 0 else 1.0, wide, size,
                a_offset=(i * kw + j) * out_channels * channels,
                b_offset=(i * dilate[0] * width + j * dilate[1]) * n,
            )  # fmt: skip
    y = numpy.ascontiguousarray(wide[:, :, :out_w])
    if b is not None:
        y += b.reshape(-1, 1, 1, 1)
    return y.transpose(3, 0, 1, 2)


def convolution_grad_weight(
    x, gy, ksize, stride, pad, cover_all=False, dilate=None, groups=1, cols=None
):  # fmt: skip
    """Computes the filter gradient of a convolution: GEMMs of ``gy`` and patches.

    Args:
        x (:ref:`ndarray`): Input of the convolution, ``(n, c_I, *spatial)``.
        gy (:ref:`ndarray`): Output gradient, ``(n, c_O, *out_size)``, with
            the dtype of ``x``.
        ksize, stride, pad (tuple of int): Per-axis filter size, stride and
            padding.
        cover_all (bool or tuple of bool): Chainer's ``cover_all`` option.
        dilate (tuple of int or None): Per-axis dilation (1 if None).
        groups (int): Number of channel groups.
        cols (list or None): The patch matrices that
            :func:`convolution_forward` kept (a :class:`RowChunks` or a list of
            batch chunks); rebuilt chunk by chunk if None.

    Returns:
        :ref:`ndarray`: The gradient as a ``(c_O, c_I / groups * prod(ksize))``
        matrix.
    """
    n, out_channels = gy.shape[:2]
    if isinstance(cols, RowChunks):
        gy2 = as_batch_innermost(gy).reshape(out_channels, -1)
        size = _prod(gy.shape[3:]) * n
    else:
        gy2 = gy.swapaxes(0, 1).reshape(out_channels, -1)
        size = _prod(gy.shape[2:])
    if cols is None:
        rows = x.shape[1] * _prod(ksize)
        if _is_pointwise(ksize, stride, pad):
            chunks = [(0, n)]
        else:
            chunks = _batch_chunks(n, rows * size * x.itemsize)
        cols = [
            (i, j, im2col_matrix(x[i:j], ksize, stride, pad, cover_all, dilate)[0])
            for i, j in chunks
        ]

    # The transposed product col @ gy^T per chunk: 1.1-1.6x faster than
    # gy @ col^T for the small output-channel counts of the VGG-style and
    # LeNet-style layers (2 BLAS threads).
    def item(k):
        i, j, col = cols[k]
        if col is None:
            col = cols.rebuild(i, j)
        return grouped_matmul(col, gy2[:, i * size : j * size], groups, transb=True)

    # Summed in item order whichever thread made each term (NumPy only: a
    # GPU's current device and stream belong to the calling thread).
    if backend.get_array_module(gy) is numpy:
        _parallel.engage()
        parts = _parallel.run(item, len(cols))
    else:
        parts = [item(k) for k in range(len(cols))]
    gW_t = parts[0]
    for g in parts[1:]:
        gW_t += g
    if groups == 1:
        return gW_t.T
    # Rows of group g of gW_t are block g's (c_I / groups * prod(ksize),
    # c_O / groups) transposed gradient.
    gW_t = gW_t.reshape(groups, -1, out_channels // groups)
    return gW_t.swapaxes(1, 2).reshape(out_channels, -1)


def deconvolution_forward(
    x, W, b=None, stride=None, pad=None, out_size=None, dilate=None, groups=1
):  # fmt: skip
    """Computes a transposed convolution: GEMMs, then patches summed onto the image.

    The adjoint of :func:`convolution_forward` with the same filters: for
    each cache-sized chunk of the batch one GEMM gives the patch matrix of
    the output (see :func:`im2col_matrix`), whose windows are added onto
    the output with one strided addition per kernel tap.

    Args:
        x (:ref:`ndarray`): Input of shape ``(n, c_I, *in_size)``.
        W (:ref:`ndarray`): Filters of shape ``(c_I, c_O / groups, *ksize)``
            with the dtype of ``x``.
        b (:ref:`ndarray` or None): Bias of shape ``(c_O,)``.
        stride, pad (tuple of int): Per-axis stride and padding.
        out_size (tuple of int): Spatial output shape; the convolution with
            these parameters (and ``cover_all`` where needed) maps it back
            to ``in_size``.
        dilate (tuple of int or None): Per-axis dilation (1 if None).
        groups (int): Number of channel groups.

    Returns:
        :ref:`ndarray`: Output of shape ``(n, c_O, *out_size)``: a view with
        the channel axis outermost in memory and, for batches that are not
        chunked and for batch-innermost NumPy inputs (see
        :func:`is_batch_innermost`), the batch axis innermost (dense for
        those inputs).
    """
    xp = backend.get_array_module(x)
    n, in_channels = x.shape[:2]
    in_size = x.shape[2:]
    ksize = W.shape[2:]
    nd = len(ksize)
    dilate = (1,) * nd if dilate is None else dilate
    out_channels = W.shape[1] * groups
    w2 = W.reshape(in_channels, -1)
    if _is_pointwise(ksize, stride, pad) and tuple(in_size) == tuple(out_size):
        x2 = x.swapaxes(0, 1).reshape(in_channels, -1)
        y = grouped_matmul(w2, x2, groups, transa=True)
        if b is not None:
            y += b[:, None]
        return y.reshape(out_channels, n, *out_size).swapaxes(0, 1)
    size = _prod(in_size)
    padded = _padded_extent(out_size, in_size, ksize, stride, pad, dilate)
    inner = tuple(slice(p, p + o) for p, o in zip(pad, out_size, strict=True))
    rows = out_channels * _prod(ksize)
    chunks = _batch_chunks(n, rows * size * x.itemsize)
    if len(chunks) == 1 or (xp is numpy and is_batch_innermost(x)):
        # Batch innermost: the window additions then run over whole rows of
        # (width x batch) elements instead of short rows of width elements
        # (4x faster for the LeNet-style layers).
        x2 = xp.ascontiguousarray(x.transpose(1, *range(2, nd + 2), 0))
        # (One GEMM here: blocks of output channels on a CPU team's threads
        # made the VGG-style step slower, 166 vs 160 ms, 10 of 40 steps.)
        col = grouped_matmul(w2, x2.reshape(in_channels, -1), groups, transa=True)
        col = col.reshape(out_channels, *ksize, *in_size, n)
        img = xp.zeros((out_channels, *padded, n), x.dtype)
        _add_windows(
            img, lambda tap: col[(slice(None), *tap)], ksize, stride, dilate,
            in_size, trail=1,
        )  # fmt: skip
        y = img[(slice(None), *inner)]
        if xp is numpy and y.shape != img.shape:
            # A dense batch-innermost output: long inner runs for what
            # follows (and a view of it needs no copy there).
            y = xp.ascontiguousarray(y)
        if b is not None:
            y += b.reshape((-1,) + (1,) * (nd + 1))
        return y.transpose(nd + 1, 0, *range(1, nd + 1))
    x2 = x.swapaxes(0, 1).reshape(in_channels, -1)
    img = xp.zeros((out_channels, n, *padded), x.dtype)
    for i, j in chunks:
        col = grouped_matmul(w2, x2[:, i * size : j * size], groups, transa=True)
        col = col.reshape(out_channels, *ksize, j - i, *in_size)
        _add_windows(
            img[:, i:j], lambda tap, col=col: col[(slice(None), *tap)], ksize, stride,
            dilate, in_size,
        )  # fmt: skip
    y = img[(slice(None), slice(None), *inner)]
    if b is not None:
        y += b.reshape((-1,) + (1,) * (nd + 1))
    return y.swapaxes(0, 1)


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
    xp = backend.get_array_module(a)
    dtype = a.dtype
    half = dtype == xp.float16
    if half:
        a = a.astype(xp.float32)
        b = b.astype(xp.float32)
    if groups == 1:
        a = a.T if transa else a
        b = b.T if transb else b
        if out is None or half:
            y = a @ b
        else:
            return xp.matmul(a, b, out=out)
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


def _prod(values):
    size = 1
    for v in values:
        size *= v
    return size


def im2col_cpu(
    img, kh, kw, sy, sx, ph, pw, pval=0, cover_all=False, dy=1, dx=1,
    out_h=None, out_w=None,
):  # fmt: skip
    """Extracts 2-d patches into a new array (Chainer's layout).

    Args:
        img (:ref:`ndarray`): Array of shape ``(n, c, h, w)``.
        kh, kw (int): Filter size.
        sy, sx (int): Stride.
        ph, pw (int): Padding.
        pval (scalar): Value read in the padding.
        cover_all (bool): Chainer's ``cover_all`` option.
        dy, dx (int): Dilation.
        out_h, out_w (int or None): Output size (computed when None).

    Returns:
        :ref:`ndarray`: Array of shape ``(n, c, kh, kw, out_h, out_w)``.
    """
    xp = backend.get_array_module(img)
    h, w = img.shape[2:]
    if out_h is None:
        out_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy)
    if out_w is None:
        out_w = get_conv_outsize(w, kw, sx, pw, cover_all, dx)
    if out_h <= 0 or out_w <= 0:
        raise ValueError(f"the output would be empty ({out_h}, {out_w})")
    hi_h = max(0, (out_h - 1) * sy + (kh - 1) * dy + 1 - h - ph)
    hi_w = max(0, (out_w - 1) * sx + (kw - 1) * dx + 1 - w - pw)
    x = pad_spatial(img, (ph, pw), (hi_h, hi_w), pval)
    view = window_view(x, (kh, kw), (sy, sx), (out_h, out_w), (dy, dx))
    return xp.ascontiguousarray(view.transpose(0, 1, 4, 5, 2, 3))


def col2im_cpu(col, sy, sx, ph, pw, h, w, dy=1, dx=1):
    """Sums 2-d patches back onto an image: the adjoint of :func:`im2col_cpu`.

    Args:
        col (:ref:`ndarray`): Array of shape ``(n, c, kh, kw, out_h, out_w)``.
        sy, sx (int): Stride.
        ph, pw (int): Padding.
        h, w (int): Image size.
        dy, dx (int): Dilation.

    Returns:
        :ref:`ndarray`: Array of shape ``(n, c, h, w)``.
    """
    return col2im_nd(
        col.transpose(0, 1, 4, 5, 2, 3), (sy, sx), (ph, pw), (h, w), (dy, dx)
    )


def parse_dilate_groups(kwargs, name):
    """Reads the keyword-only ``dilate`` and ``groups`` of 2-d convolutions.

    Chainer's 2-d convolution functions and links take these two options as
    ``**kwargs``; ``deterministic`` is a removed option.

    Args:
        kwargs (dict): The keyword arguments left after the named ones.
        name (str): Name of the caller, used in error messages.

    Returns:
        tuple: ``(dilate, groups)``, 1 where not given.

    Raises:
        ValueError: For the removed ``deterministic`` option.
        TypeError: For any other unexpected keyword.
    """
    if "deterministic" in kwargs:
        raise ValueError(
            "deterministic argument is not supported anymore. Use "
            "chainer.using_config('cudnn_deterministic', value) context where "
            "value is either `True` or `False`."
        )
    unknown = sorted(set(kwargs) - {"dilate", "groups"})
    if unknown:
        raise TypeError(
            f"{name}() got unexpected keyword argument(s): {', '.join(unknown)}"
        )
    return kwargs.get("dilate", 1), kwargs.get("groups", 1)
