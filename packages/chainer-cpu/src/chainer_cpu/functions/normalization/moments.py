"""Per-channel sums of NumPy arrays, by the fastest formulation per shape.

The NumPy counterparts of ``Layout.sum`` and ``Layout.dot`` of
:mod:`chainer.functions.normalization.moments`, shared by chainer-cpu's
normalization kernels. ``a`` and ``b`` are views of ``x``'s shape in the
layout's ``(A, K, B)`` form (``K`` channels); the result is flat, one value
per channel, in ``a``'s dtype.

Where each channel of ``a`` (and ``b``) fills one block of memory in the
same element order (a channel-major array, or a batch-innermost one as
chainer-cpu's convolutions give, see :mod:`chainer_cpu._layout`), the sums
run over contiguous ``(K, A * B)`` rows. Otherwise the order of the reduction
follows the length ``B`` of the trailing block.
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
