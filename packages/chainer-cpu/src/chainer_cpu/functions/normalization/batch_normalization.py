"""NumPy kernels of batch normalization: training forward, its gradient, fixed.

Kernel overrides for ``(BatchNormalization, "numpy")``,
``(BatchNormalizationGrad, "numpy")`` and ``(FixedBatchNormalization,
"numpy")``, registered by :mod:`chainer_cpu._plugin`. They compute what the
catalogue's reference implementation
(:mod:`chainer.functions.normalization.batch_normalization`) computes, with
the per-channel sums of :mod:`chainer_cpu.functions.normalization.moments`
(contiguous per-channel rows where the memory order allows, matmul GEMVs for
long maps) instead of one einsum, and keep the memory order of ``x``: a
batch-innermost input (a chainer-cpu convolution's output) gives a
batch-innermost output, which the next convolution reads without a copy.

From ``BLOCKED_MIN`` elements, an ``x`` whose channels each fill one block of
memory (batch-innermost, as chainer-cpu's convolutions give, or
channel-major) takes a blocked path in the training forward and gradient:
channel groups sized from the L2 cache the machine reports
(:func:`channel_groups`) go through every pass while in cache, shared among
the CPU team's threads. For the three batch-normalization shapes of the
VGG-style benchmark (forward and gradient, batch-innermost): 10.7 vs 15.7 ms
on 2 threads of a 2-core Xeon with 2 MiB L2 per core, NumPy 2.4; groups of a
quarter of L2 measured best (an eighth 12.8 ms, a sixteenth 16.4, half 10.4,
the whole L2 12.6).

They import nothing of the catalogue: each node's documented
``set_layout(x, gamma)`` gives the reduction layout (a
``chainer.functions.normalization.moments.Layout``) and the dtype of the
statistics. Besides it they read and set only documented attributes: ``eps``,
``decay``, ``running_mean``, ``running_var``, ``mean``, ``inv_std`` and,
on the gradient node, ``ggamma`` and ``gbeta``.
"""

import numpy

from chainer_cpu import _machine
from chainer_cpu import _parallel
from chainer_cpu.functions.normalization import moments as cpu_moments

# FixedBatchNormalization scales and shifts x in chunks of about this many
# bytes (compute dtype), cut along the view axis (batch or channel) that is
# outermost in memory, so that the shift adds to data still in cache:
# 1.08 vs 1.27 ms for the one-pass reference on a batch-innermost
# (64, 32, 32, 32) float32 input, 0.53 vs 0.59 on (64, 64, 16, 16).
AFFINE_CHUNK_BYTES = 1 << 20


#: From this many elements, an ``x`` whose channels each fill one block of
#: memory (channel-major or batch-innermost) is normalized channel group by
#: channel group, every pass over a group while it is in cache, the groups
#: shared among the CPU team's threads (see :func:`channel_groups`).
BLOCKED_MIN = 1 << 16


def channel_groups(channels, row_bytes):
    """``(start, stop)`` channel groups whose rows fill about a quarter of L2.

    Args:
        channels (int): Number of channels.
        row_bytes (int): Bytes of one channel's row in the compute dtype.

    Returns:
        list: Consecutive groups covering ``range(channels)``.
    """
    per = max(1, _machine.cache_bytes(2) // (4 * max(1, row_bytes)))
    return [(k, min(k + per, channels)) for k in range(0, channels, per)]


def _rows(layout, *arrays):
    # (K, M) C-contiguous row views of x-shaped arrays whose channels each
    # fill one block of memory in the same element order; else None.
    if layout.view_shape is None:
        return None
    return cpu_moments.channel_blocks(*(layout.view(a) for a in arrays))


def _row_dot(a, b):
    # Per-row sums of a * b of two (g, M) arrays (one GEMV per row).
    return numpy.matmul(a[:, None, :], b[:, :, None]).ravel()


def _forward_blocked(node, x, gamma, beta, layout, dtype):
    # The training forward group by group; returns (y, mean, var) or None.
    if x.size < BLOCKED_MIN:
        return None
    y = numpy.empty_like(x)  # the memory order of x
    rows = _rows(layout, x, y)
    if rows is None:
        return None
    xr, yr = rows
    inv_m = 1.0 / max(layout.count, 1)
    g_flat = gamma.ravel().astype(dtype, copy=False)
    b_flat = beta.ravel().astype(dtype, copy=False)
    groups = channel_groups(xr.shape[0], xr.shape[1] * dtype.itemsize)

    def group(i):
        k0, k1 = groups[i]
        xs = xr[k0:k1]
        if xs.dtype != dtype:
            xs = xs.astype(dtype)
        mean = numpy.einsum("km->k", xs) * inv_m
        d = numpy.subtract(xs, mean[:, None])
        var = _row_dot(d, d) * inv_m
        inv_std = _inv_std(var, node.eps)
        d *= (g_flat[k0:k1] * inv_std)[:, None]
        d += b_flat[k0:k1][:, None]
        yr[k0:k1] = d
        return mean, var, inv_std

    parts = _parallel.run(group, len(groups))
    mean, var, inv_std = (numpy.concatenate(p) for p in zip(*parts, strict=True))
    return y, mean, var, inv_std


def _grad_blocked(node, x, gamma, gy, layout, dtype):
    # The gradient group by group; returns (gx, ggamma, gbeta) or None.
    if x.size < BLOCKED_MIN:
        return None
    gx = numpy.empty_like(x)
    rows = _rows(layout, x, gy, gx)
    if rows is None:
        return None
    xr, gr, gxr = rows
    inv_m = 1.0 / max(layout.count, 1)
    mean, inv_std = node.mean, node.inv_std
    g_flat = gamma.ravel().astype(dtype, copy=False)
    groups = channel_groups(xr.shape[0], xr.shape[1] * dtype.itemsize)

    def group(i):
        k0, k1 = groups[i]
        xs, gs = xr[k0:k1], gr[k0:k1]
        if gs.dtype != dtype:
            gs = gs.astype(dtype)
        d = numpy.subtract(xs, mean[k0:k1, None], dtype=dtype)
        istd = inv_std[k0:k1]
        gbeta = numpy.einsum("km->k", gs)
        ggamma = _row_dot(gs, d) * istd
        # gx = gamma * inv_std * (gy - (x_hat * ggamma + gbeta) / m)
        d *= (ggamma * (-istd * inv_m))[:, None]
        d += gs
        d -= (gbeta * inv_m)[:, None]
        d *= (g_flat[k0:k1] * istd)[:, None]
        gxr[k0:k1] = d
        return ggamma, gbeta

    parts = _parallel.run(group, len(groups))
    ggamma, gbeta = (numpy.concatenate(p) for p in zip(*parts, strict=True))
    return gx, ggamma, gbeta


def _inv_std(var, eps):
    # 1 / sqrt(var + eps), in place on a new array.
    inv_std = var + eps
    numpy.sqrt(inv_std, out=inv_std)
    numpy.reciprocal(inv_std, out=inv_std)
    return inv_std


def batch_normalization(node, inputs):
    """Forward of ``BatchNormalization`` (batch statistics).

    Sets ``axis`` and ``layout`` (``node.set_layout``), ``mean`` and
    ``inv_std``, updates the running statistics and retains ``x`` and
    ``gamma``, as the node's forward does.

    Args:
        node (~chainer.FunctionNode): The BatchNormalization node.
        inputs (tuple): ``(x, gamma, beta)`` NumPy arrays.

    Returns:
        tuple: ``(y,)``.
    """
    x, gamma, beta = inputs
    layout, dtype = node.set_layout(x, gamma)
    m = layout.count
    blocked = _forward_blocked(node, x, gamma, beta, layout, dtype)
    if blocked is not None:
        y, mean, var, inv_std = blocked
        _finish_forward(node, gamma, mean, var, inv_std, m)
        return (y,)
    inv_m = 1.0 / max(m, 1)
    xv = layout.view(x)
    xc = xv if xv.dtype == dtype else xv.astype(dtype)
    mean = cpu_moments.channel_sum(layout, xc) * inv_m
    # x - mean, in the memory order of x (empty_like keeps it).
    d = numpy.subtract(xv, layout.expand(mean), out=numpy.empty_like(xv, dtype))
    var = cpu_moments.channel_dot(layout, d, d) * inv_m
    inv_std = _inv_std(var, node.eps)
    d *= layout.expand(gamma.ravel() * inv_std)
    d += layout.expand(beta.ravel())
    y = d.reshape(x.shape).astype(x.dtype, copy=False)
    _finish_forward(node, gamma, mean, var, inv_std, m)
    return (y,)


def _finish_forward(node, gamma, mean, var, inv_std, m):
    # What the forward leaves on the node: statistics, running averages,
    # retained inputs.
    node.mean = mean
    node.inv_std = inv_std
    if node.running_mean is not None and m > 0:
        decay = node.decay
        adjust = m / max(m - 1.0, 1.0)
        node.running_mean *= decay
        node.running_mean += ((1 - decay) * mean).reshape(gamma.shape)
        node.running_var *= decay
        node.running_var += ((1 - decay) * adjust * var).reshape(gamma.shape)
    node.retain_inputs((0, 1))


def batch_normalization_grad(node, inputs):
    """Forward of ``BatchNormalizationGrad``: ``(gx, ggamma, gbeta)``.

    Sets ``layout`` when unset (``node.set_layout``), ``ggamma`` and
    ``gbeta`` (read by its backward) and retains all three inputs, as the
    node's forward does.

    Args:
        node (~chainer.FunctionNode): The BatchNormalizationGrad node.
        inputs (tuple): ``(x, gamma, gy)`` NumPy arrays.

    Returns:
        tuple: ``(gx, ggamma, gbeta)``.
    """
    x, gamma, gy = inputs
    layout, dtype = node.set_layout(x, gamma)
    blocked = _grad_blocked(node, x, gamma, gy, layout, dtype)
    if blocked is not None:
        gx, ggamma, gbeta = blocked
        return _finish_grad(node, gamma, gx, ggamma, gbeta)
    mean, inv_std = node.mean, node.inv_std
    inv_m = 1.0 / max(layout.count, 1)
    gyv = layout.view(gy)
    if gyv.dtype != dtype:
        gyv = gyv.astype(dtype)
    xv = layout.view(x)
    d = numpy.subtract(xv, layout.expand(mean), out=numpy.empty_like(xv, dtype))
    gbeta = cpu_moments.channel_sum(layout, gyv)
    ggamma = cpu_moments.channel_dot(layout, gyv, d) * inv_std
    # gx = gamma * inv_std * (gy - (x_hat * ggamma + gbeta) / m), in place.
    d *= layout.expand(ggamma * (-inv_std * inv_m))
    d += gyv
    d -= layout.expand(gbeta * inv_m)
    d *= layout.expand(gamma.ravel() * inv_std)
    return _finish_grad(
        node, gamma, d.reshape(x.shape).astype(x.dtype, copy=False), ggamma, gbeta
    )


def _finish_grad(node, gamma, gx, ggamma, gbeta):
    # What the gradient node keeps (read by its backward), and its outputs.
    node.ggamma = ggamma
    node.gbeta = gbeta
    node.retain_inputs((0, 1, 2))
    return (
        gx,
        ggamma.reshape(gamma.shape).astype(gamma.dtype, copy=False),
        gbeta.reshape(gamma.shape).astype(gamma.dtype, copy=False),
    )


def fixed_batch_normalization(node, inputs):
    """Forward of ``FixedBatchNormalization`` (given statistics).

    ``y = x * scale + shift`` per channel, chunk by chunk (see
    ``AFFINE_CHUNK_BYTES``), in the memory order of ``x``. Sets ``axis``,
    ``layout`` and ``full`` (``node.set_layout``) and ``inv_std``, and
    retains ``x``, ``gamma``, ``mean`` and ``var``, as the node's forward
    does.

    Args:
        node (~chainer.FunctionNode): The FixedBatchNormalization node.
        inputs (tuple): ``(x, gamma, beta, mean, var)`` NumPy arrays.

    Returns:
        tuple: ``(y,)``.
    """
    x, gamma, beta, mean, var = inputs
    layout, dtype = node.set_layout(x, gamma)
    inv_std = _inv_std(var.ravel().astype(dtype), node.eps)
    scale = gamma.ravel() * inv_std
    shift = beta.ravel() - mean.ravel() * scale
    xv = layout.view(x)
    y = numpy.empty_like(xv)  # the memory order of x
    scale, shift = layout.expand(scale), layout.expand(shift)
    # Chunks along the view axis (batch or channel) outermost in memory.
    outer = 0 if layout.view_shape is None or xv.strides[0] >= xv.strides[1] else 1
    size = xv.shape[outer]
    step = max(1, AFFINE_CHUNK_BYTES * size // max(1, xv.size * dtype.itemsize))
    for start in range(0, size, step):
        part = (slice(None),) * outer + (slice(start, start + step),)
        sc = scale[part] if scale.shape[outer] > 1 else scale
        sh = shift[part] if shift.shape[outer] > 1 else shift
        if y.dtype == dtype:
            out = numpy.multiply(xv[part], sc, out=y[part])
            out += sh
        else:
            out = numpy.multiply(xv[part], sc, dtype=dtype)
            out += sh
            y[part] = out
    node.inv_std = inv_std
    node.retain_inputs((0, 1, 3, 4))
    return (y.reshape(x.shape),)
