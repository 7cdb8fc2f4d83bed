"""Per-channel sums of NumPy arrays, by the fastest formulation per shape.

The NumPy counterparts of ``Layout.sum`` and ``Layout.dot`` of
:mod:`chainer.functions.normalization.moments`, shared by chainer-cpu's
normalization kernels. ``a`` and ``b`` are views of ``x``'s shape in the
layout's ``(A, K, B)`` form (``K`` channels); the result is flat, one value
per channel, in ``a``'s dtype.

Where each channel of ``a`` (and ``b``) fills one block of memory in the
same element order (a channel-major array, or a batch-innermost one as
chainer-cpu's convolutions give, see :mod:`chainer_cpu._layout`), the sums
run over contiguous ``(K, A * B)`` rows. Otherwise the order of the
reduction follows the length ``B`` of the trailing block.

Where the channels are innermost in memory (channels-last: ``(A, B, K)``
storage, :func:`channels_last`), the per-channel sums are column sums of one
C-contiguous ``(A * B, K)`` array, :func:`column_sum` and :func:`column_dot`,
which the batch-normalization kernels call chunk by chunk: 0.26 and 0.48 ms
against 0.49 and 0.67 for einsum over the strided ``(A, K, B)`` view of a
channels-last (64, 32, 32, 32) float32 array (0.05 and 0.11 vs 0.09 and 0.12
for (64, 128, 8, 8); 2-vCPU Xeon, NumPy 2.4). At 64K elements they gain
nothing (0.020 and 0.032 against 0.018 and 0.025 ms for (16, 64, 8, 8)), and
larger channels-last inputs take the kernels' own channels-last paths, so
:func:`channel_sum` and :func:`channel_dot` leave channels-last arrays to
their einsum branches.
"""

import numpy

# Below this many trailing elements per channel, summing over the leading axis
# first (contiguous row additions) beats einsum; above it einsum wins
# (measured on (64, C, H, W) float32 arrays, H * W from 4 to 1024).
EINSUM_MIN_TRAILING = 32
# From this many, per-channel dot products go to matmul as one GEMV per
# (sample, channel) row, or per channel when each channel fills one block of
# memory: 0.25 and 0.13 vs 0.44 ms for einsum on a channel-major
# (64, 32, 1024) float32 pair, and closer to a float64 reference. A pair in
# other memory orders (a batch-innermost x with a C-order gradient) takes
# einsum: matmul would copy every strided row.
MATMUL_MIN_TRAILING = 256
#: Products of ``(R, K)`` columns are summed over ``(R / k, k * K)`` views
#: with ``k * K`` about this many elements, so that einsum's inner loop runs
#: along long rows: 16 vs 25 us per 64K float32 elements in L2 for rows of
#: 1024 vs 32 (K = 32).
ROW_ELEMENTS = 1024


def channels_last(*arrays):
    """``(A * B, K)`` C-contiguous views of ``(A, K, B)`` channels-last arrays.

    Channels-last storage is ``(A, B, K)`` in C order (an ``(n, c, h, w)``
    array lying in memory as ``(n, h, w, c)``): row ``i`` of each view holds
    the ``K`` channels of one position, the same position for all arrays.
    With ``K == 1`` or ``B == 1`` that is plain C order, left to the paths
    for C order: None then.

    Returns:
        tuple or None: One view per array, or None unless all are
        channels-last.
    """
    for a in arrays:
        if a.ndim != 3 or a.shape[1] < 2 or a.shape[2] < 2:
            return None
        if a.strides[1] != a.itemsize:  # cheap for the usual C order
            return None
    moved = [a.transpose(0, 2, 1) for a in arrays]
    if all(m.flags.c_contiguous for m in moved):
        return tuple(m.reshape(-1, m.shape[2]) for m in moved)
    return None


def row_group(channels):
    """Rows ``k`` that :func:`column_sum` and :func:`column_dot` view as one,
    ``k * channels`` about ``ROW_ELEMENTS``."""
    return max(1, ROW_ELEMENTS // max(1, channels))


def _fold(a, b, reduce, dtype):
    # reduce(a', b') over (rows / k, k * K) views of the first rows - rows % k
    # rows, then over the rows left over, its k tiles added in float64:
    # sequential float32 sums over thousands of rows lose 1e-4 on sums of
    # about 70.
    rows, channels = a.shape
    k = row_group(channels)
    main = rows - rows % k
    out = numpy.zeros(channels, numpy.float64)
    if main:
        wide = (main // k, k * channels)
        part = reduce(
            a[:main].reshape(wide), None if b is None else b[:main].reshape(wide)
        )
        out += part.reshape(k, channels).sum(axis=0, dtype=numpy.float64)
    if main < rows:
        out += reduce(a[main:], None if b is None else b[main:])
    return out.astype(a.dtype if dtype is None else dtype, copy=False)


def _sum_rows(a, _):
    # Column sums: one GEMV with a vector of ones for float32 and float64
    # (6-7 us per 64K float32 elements in L2 at any row width, a.sum(axis=0)
    # 10 us for rows of 1024, 63 for rows of 32).
    if a.dtype.char in "fd":
        return numpy.matmul(numpy.ones(a.shape[0], a.dtype), a)
    return a.sum(axis=0)


def _dot_rows(a, b):
    return numpy.einsum("rk,rk->k", a, b)


def column_sum(a, dtype=None):
    """Per-column sums of a C-contiguous ``(R, K)`` array, flat.

    Args:
        a (numpy.ndarray): The columns.
        dtype: Dtype of the result (``a``'s by default); the sums over
            ``row_group`` rows at a time are added in float64.
    """
    return _fold(a, None, _sum_rows, dtype)


def column_dot(a, b, dtype=None):
    """Per-column sums of ``a * b`` of two C-contiguous ``(R, K)`` arrays, flat.

    Like :func:`column_sum`, the products summed by einsum over ``(R / k,
    k * K)`` views (``k`` = :func:`row_group`) for long inner loops.
    """
    return _fold(a, b, _dot_rows, dtype)


def channel_blocks(*arrays):
    """``(K, A * B)`` C-contiguous views of ``(A, K, B)`` arrays, or None.

    Views exist where each channel of every array fills one block of memory
    in the same order for all: channel-major ``(K, A, B)`` or batch-innermost
    ``(K, B, A)`` storage. Elements at one index of the rows then correspond.

    Returns:
        tuple or None: One ``(K, A * B)`` view per array.
    """
    for order in ((1, 0, 2), (1, 2, 0)):
        moved = [a.transpose(order) for a in arrays]
        if all(m.flags.c_contiguous for m in moved):
            return tuple(m.reshape(m.shape[0], -1) for m in moved)
    return None


def channel_sum(layout, a):
    """Per-channel sums of ``a`` (a ``layout.view``), as a flat NumPy array.

    Args:
        layout (~chainer.functions.normalization.moments.Layout): The
            reduction layout of ``x``.
        a (numpy.ndarray): ``x``-shaped data in ``layout.view`` form.

    Returns:
        numpy.ndarray: ``layout.channels`` sums.
    """
    if layout.view_shape is None:
        return a.sum(axis=layout.axis).ravel()
    n_lead, _, n_trail = layout.view_shape
    if n_trail == 1:
        return a[:, :, 0].sum(axis=0)
    if n_lead == 1:
        return a[0].sum(axis=1)
    if n_trail >= EINSUM_MIN_TRAILING:
        rows = channel_blocks(a)
        if rows is not None:
            return numpy.einsum("kb->k", rows[0])
        return numpy.einsum("akb->k", a)
    return a.sum(axis=0).sum(axis=1)


def channel_dot(layout, a, b):
    """Per-channel sums of ``a * b`` (two ``layout.view`` arrays), flat.

    Args:
        layout (~chainer.functions.normalization.moments.Layout): The
            reduction layout of ``x``.
        a (numpy.ndarray): ``x``-shaped data in ``layout.view`` form.
        b (numpy.ndarray): Likewise, with the shape and dtype of ``a``.

    Returns:
        numpy.ndarray: ``layout.channels`` sums.
    """
    if layout.view_shape is None:
        return (a * b).sum(axis=layout.axis).ravel()
    n_lead, _, n_trail = layout.view_shape
    if n_trail == 1:
        return numpy.einsum("ak,ak->k", a[:, :, 0], b[:, :, 0])
    if n_lead == 1:
        return numpy.einsum("kb,kb->k", a[0], b[0])
    if n_trail >= MATMUL_MIN_TRAILING:
        rows = channel_blocks(a, b)
        if rows is not None:
            ar, br = rows
            return numpy.matmul(ar[:, None, :], br[:, :, None]).ravel()
        if a.strides[2] == a.itemsize and b.strides[2] == b.itemsize:
            # Contiguous trailing rows: one GEMV per (sample, channel).
            products = numpy.matmul(a[:, :, None, :], b[:, :, :, None])
            return products.sum(axis=0).ravel()
    if n_trail >= EINSUM_MIN_TRAILING:
        return numpy.einsum("akb,akb->k", a, b)
    return (a * b).sum(axis=0).sum(axis=1)
