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

From ``BLOCKED_MIN`` elements too, a channels-last ``x`` (an ``(n, c, h, w)``
array lying in memory as ``(n, h, w, c)``, as ``nhwc`` convolutions give)
takes a channels-last path in all three kernels: ``x`` is one C-contiguous
``(rows, channels)`` array, its per-channel sums are column sums over
``(rows / k, k * channels)`` views (``moments.column_sum`` and
``column_dot``), and the scale and shift are per-channel vectors tiled to the
length of a chunk of rows, chunk by chunk (:data:`CHUNK_DIVISOR`), the
chunks shared among the CPU team's threads. Outputs are channels-last; a
``gy`` in another order is copied into ``x``'s first. The path reads ``x``
(and ``gy``) once more than the blocked one, whose groups stay in cache
between passes. Its statistics take one pass over ``x`` whatever the means:
each chunk's squared deviations from its own mean while in cache, the
chunks combined about the global mean; the outputs are computed from ``x -
mean``, as the reference does. Float32, medians of 40 interleaved calls, 2
threads of a 2-vCPU Xeon (2 MiB L2 per core), NumPy 2.4; channels-last /
batch-innermost (blocked) / channels-last before this path, in ms:

=================  ==================  ==================  ==================
shape              forward             gradient            fixed
=================  ==================  ==================  ==================
(64, 32, 32, 32)   3.86 / 2.45 / 6.08  4.66 / 3.05 / 7.93  1.14 / 1.78 / 2.68
(64, 64, 16, 16)   1.86 / 1.09 / 2.09  2.29 / 1.28 / 2.91  0.60 / 0.54 / 0.92
(64, 128, 8, 8)    1.04 / 0.79 / 0.97  1.29 / 0.88 / 1.32  0.43 / 0.62 / 0.47
=================  ==================  ==================  ==================

(A version taking sums of ``x`` and ``x * x`` in one pass was 20 % faster
where the means were near zero, and needed a second pass where they were
not, which in the VGG-style step was about every other call.) Inside the
VGG-style step (``benchmarks/ab_step.py vgg``; inputs fresh from oneDNN's
convolutions, not in cache) the channels-last kernels took 5.0 / 3.0 / 1.9
ms (forward) and 6.2 / 3.7 / 2.4 ms (gradient) for the three shapes, the
blocked ones on batch-innermost inputs 2.9 / 1.6 / 1.1 and 3.7 / 2.0 / 1.3
(medians of 24 calls each, the two orders interleaved).

Where the ``onednn`` extra is in use (:mod:`chainer_cpu._onednn`), a
float32 channels-last ``x`` of ``BLOCKED_MIN`` elements or more, normalized
per channel, goes to oneDNN's batch normalization instead (training forward
and gradient; :data:`USE_ONEDNN`): the VGG-style step 124.6 vs 154.9 ms
against the channels-last kernels here (``benchmarks/ab_step.py vgg``, 15
of 16 rounds).

They import nothing of the catalogue: each node's documented
``set_layout(x, gamma)`` gives the reduction layout (a
``chainer.functions.normalization.moments.Layout``) and the dtype of the
statistics. Besides it they read and set only documented attributes: ``eps``,
``decay``, ``running_mean``, ``running_var``, ``mean``, ``inv_std`` and,
on the gradient node, ``ggamma`` and ``gbeta``.
"""

import numpy

from chainer_cpu import _layout
from chainer_cpu import _machine
from chainer_cpu import _onednn
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


#: From ``BLOCKED_MIN`` elements, a channels-last ``x`` (channels innermost
#: in memory, see
#: :func:`chainer_cpu.functions.normalization.moments.channels_last`) is
#: processed as a ``(rows, channels)`` array in chunks of rows, the chunks
#: shared among the CPU team's threads (see :func:`chunk_rows`). A pass that
#: writes an output takes chunks of ``cache_bytes(2) // CHUNK_DIVISOR`` bytes
#: (the chunk of each operand and the per-channel vectors tiled to its
#: length stay in L2: chunks of a quarter of L2 made the gradient up to 15%
#: slower, of a sixteenth no faster); a pass that only sums, of
#: ``cache_bytes(2) // SUM_DIVISOR`` bytes for all the arrays it reads
#: (fewer calls: the gradient 10% faster than with half of that, no faster
#: with two or four times as much).
CHUNK_DIVISOR = 8
SUM_DIVISOR = 1


def chunk_rows(rows, channels, itemsize, divisor):
    """Rows of a channels-last chunk: about ``cache_bytes(2) // divisor``
    bytes, a multiple of ``moments.row_group(channels)``, at most ``rows``.

    Args:
        rows (int): Rows of the whole ``(rows, channels)`` array.
        channels (int): Number of channels (elements of one row).
        itemsize (int): Bytes of one element in the compute dtype.
        divisor (int): The fraction of L2 (``CHUNK_DIVISOR``, or
            ``SUM_DIVISOR`` times the arrays a sum reads).
    """
    k = cpu_moments.row_group(channels)
    per = _machine.cache_bytes(2) // (divisor * itemsize * channels)
    return min(rows, max(k, per // k * k))


def _spans(rows, step):
    # Row ranges, whole chunks of ``step`` rows, one per thread of the team.
    chunks = -(-rows // step)
    width = min(_parallel.width(), chunks)
    return [
        (step * (chunks * t // width), min(rows, step * (chunks * (t + 1) // width)))
        for t in range(width)
    ]


def _each_chunk(fn, rows, step):
    # fn(start, stop) over the chunks of each thread's span; returns the
    # threads' results.
    spans = _spans(rows, step)

    def span(t):
        lo, hi = spans[t]
        return [fn(a, min(a + step, hi)) for a in range(lo, hi, step)]

    return [r for part in _parallel.run(span, len(spans)) for r in part]


def _tile(vec, dtype, step):
    # A flat per-channel vector repeated for ``step`` rows: chunks broadcast
    # it as one contiguous operand (11 vs 19 us per 64K float32 elements in
    # L2 for a (64, 1024) view broadcasting a row).
    return numpy.tile(vec.astype(dtype, copy=False), step)


def _row_pass(xr, outr, dtype, vectors, fill):
    # outr from xr chunk by chunk in ``dtype``: each per-channel vector of
    # ``vectors`` tiled to a chunk's length, ``fill(x, out, tiles, a, b)``
    # writes the flat result of rows a:b into ``out`` (outr's rows where its
    # dtype is ``dtype``, else a scratch copied into them).
    count, channels = xr.shape
    step = chunk_rows(count, channels, dtype.itemsize, CHUNK_DIVISOR)
    tiles = [_tile(v, dtype, step) for v in vectors]
    direct = outr.dtype == dtype

    def chunk(a, b):
        n = (b - a) * channels
        out = outr[a:b].reshape(-1) if direct else numpy.empty(n, dtype)
        fill(xr[a:b].reshape(-1), out, [t[:n] for t in tiles], a, b)
        if not direct:
            outr[a:b] = out.reshape(b - a, channels)

    _each_chunk(chunk, count, step)


def _affine_rows(xr, yr, scale, shift, dtype, mean=None):
    # yr = xr * scale + shift per column, chunk by chunk in ``dtype``; with a
    # ``mean``, (xr - mean) * scale + shift.
    if mean is None:

        def fill(xs, out, tiles, a, b):
            scale_t, shift_t = tiles
            numpy.multiply(xs, scale_t, out=out)
            out += shift_t

        _row_pass(xr, yr, dtype, (scale, shift), fill)
        return

    def fill_centred(xs, out, tiles, a, b):
        mean_t, scale_t, shift_t = tiles
        numpy.subtract(xs, mean_t, out=out)
        out *= scale_t
        out += shift_t

    _row_pass(xr, yr, dtype, (mean, scale, shift), fill_centred)


def _channels_last_rows(layout, a):
    # The (rows, channels) view of an x-shaped array stored channels-last,
    # or None; the strides of the last channel axis rule out the other
    # orders before layout.view (which copies where it cannot view).
    if layout.view_shape is None or len(layout.axis) == a.ndim:
        return None
    last = max(set(range(a.ndim)) - set(layout.axis))
    if a.strides[last] != a.itemsize:
        return None
    rows = cpu_moments.channels_last(layout.view(a))
    return None if rows is None else rows[0]


def _channels_last_output(layout, x):
    # (xr, out, outr) for a large channels-last x: its (rows, channels) view,
    # a new array of its shape and memory order and that array's view; else
    # None.
    xr = _channels_last_rows(layout, x) if x.size >= BLOCKED_MIN else None
    if xr is None:
        return None
    out = numpy.empty_like(x)  # channels-last too
    outr = _channels_last_rows(layout, out)
    return None if outr is None else (xr, out, outr)


def _minus_columns(c, vec):
    # c - vec per column of an (n, K) chunk, as a new array: over (n / k,
    # k * K) views (k = moments.row_group(K)) against vec tiled k times, for
    # long inner loops; the rows left over against vec itself.
    n, channels = c.shape
    k = cpu_moments.row_group(channels)
    main = n - n % k
    out = numpy.empty((n, channels), vec.dtype)
    if main:
        wide = (main // k, k * channels)
        numpy.subtract(
            c[:main].reshape(wide), numpy.tile(vec, k), out=out[:main].reshape(wide)
        )
    if main < n:
        numpy.subtract(c[main:], vec, out=out[main:])
    return out


def _chunk_moments(xr, dtype):
    # Per-column mean and variance (float64) of a (rows, K) array in one pass
    # over memory: each chunk's squared deviations from its own mean while
    # it is in cache, the chunks then combined exactly (about the global
    # mean), so that no mean is ever subtracted from a sum of squares.
    count, channels = xr.shape
    # Only sums: chunks of all of L2 between x's chunk and its deviations.
    step = chunk_rows(count, channels, dtype.itemsize, 2 * SUM_DIVISOR)

    def chunk(a, b):
        c = xr[a:b] if xr.dtype == dtype else xr[a:b].astype(dtype)
        total = cpu_moments.column_sum(c, numpy.float64)
        centre = (total / (b - a)).astype(dtype)
        d = _minus_columns(c, centre)
        return b - a, total, centre, cpu_moments.column_dot(d, d, numpy.float64)

    parts = _each_chunk(chunk, count, step)
    mean = numpy.sum([p[1] for p in parts], axis=0) / count
    squares = numpy.zeros(channels, numpy.float64)
    for n, total, centre, dots in parts:
        # sum (x - mean)^2 = sum (x - r)^2 + 2 (r - mean) sum (x - r)
        #                    + n (r - mean)^2, with r the chunk's centre.
        r = centre.astype(numpy.float64)
        shift = r - mean
        squares += dots + 2.0 * shift * (total - n * r) + n * shift * shift
    return mean, squares / count


def _grad_sums(gr, xr, mean, dtype):
    # Per-column sums of gy and of gy * (x - mean) (float64), one pass over
    # memory, x - mean taken chunk by chunk while in cache.
    count, channels = xr.shape
    # Only sums: chunks of all of L2 between gy's, x's and x - mean's.
    step = chunk_rows(count, channels, dtype.itemsize, 3 * SUM_DIVISOR)
    mean_t = _tile(mean, dtype, step)

    def chunk(a, b):
        n = (b - a) * channels
        g = gr[a:b] if gr.dtype == dtype else gr[a:b].astype(dtype)
        d = numpy.subtract(xr[a:b].reshape(-1), mean_t[:n], dtype=dtype)
        d = d.reshape(b - a, channels)
        return (
            cpu_moments.column_sum(g, numpy.float64),
            cpu_moments.column_dot(g, d, numpy.float64),
        )

    parts = _each_chunk(chunk, count, step)
    return tuple(
        numpy.sum([p[i] for p in parts], axis=0, dtype=numpy.float64) for i in (0, 1)
    )


def _forward_channels_last(node, x, gamma, beta, layout, dtype):
    # The training forward of a channels-last x; returns (y, mean, var,
    # inv_std) or None.
    rows = _channels_last_output(layout, x)
    if rows is None:
        return None
    xr, y, yr = rows
    mean64, var64 = _chunk_moments(xr, dtype)
    mean, var = mean64.astype(dtype), var64.astype(dtype)
    inv_std = _inv_std(var, node.eps)
    scale = gamma.ravel().astype(dtype, copy=False) * inv_std
    # (x - mean) * scale + beta, as the reference: x * scale + (beta - mean *
    # scale) would round at the scale of the mean.
    _affine_rows(xr, yr, scale, beta.ravel().astype(dtype, copy=False), dtype, mean)
    return y, mean, var, inv_std


def _grad_channels_last(node, x, gamma, gy, layout, dtype):
    # The gradient of a channels-last x; returns (gx, ggamma, gbeta) or None.
    rows = _channels_last_output(layout, x)
    if rows is None:
        return None
    xr, gx, gxr = rows
    gr = _channels_last_rows(layout, gy)
    if gr is None:
        # gy in another memory order (a C-order gradient of a reshape): one
        # copy into x's (1.7 ms for (64, 32, 32, 32) float32), rather than
        # every pass striding over it.
        gr = _channels_last_rows(layout, _layout.copy_in_order(gy, x))
    if gr is None:
        return None
    count = xr.shape[0]
    mean, inv_std = node.mean, node.inv_std
    gbeta64, dot64 = _grad_sums(gr, xr, mean, dtype)
    ggamma = (dot64 * inv_std).astype(dtype)
    gbeta = gbeta64.astype(dtype)
    # gx = gamma * inv_std * (gy - (x_hat * ggamma + gbeta) / m)
    #    = ((x - mean) * slope + gy + offset) * g_scale
    inv_m = 1.0 / count
    slope = ggamma * (-inv_std * inv_m)
    offset = gbeta * -inv_m
    g_scale = gamma.ravel().astype(dtype, copy=False) * inv_std

    def fill(xs, out, tiles, a, b):
        mean_t, slope_t, offset_t, g_scale_t = tiles
        numpy.subtract(xs, mean_t, out=out)
        out *= slope_t
        out += gr[a:b].reshape(-1)
        out += offset_t
        out *= g_scale_t

    _row_pass(xr, gxr, dtype, (mean, slope, offset, g_scale), fill)
    return gx, ggamma, gbeta


#: Whether channels-last float32 inputs are normalized by oneDNN's batch
#: normalization where the ``onednn`` extra is in use (False: by the
#: channels-last kernels here; for comparisons).
USE_ONEDNN = True


def _onednn_applies(node, x, gamma):
    # Per-channel statistics of a large channels-last float32 x, on oneDNN.
    return (
        USE_ONEDNN
        and x.size >= BLOCKED_MIN
        and tuple(node.axis) == (0, *range(2, x.ndim))
        and _onednn.batch_normalization_applies(x, gamma)
    )


def _forward_onednn(node, x, gamma, beta, layout, dtype):
    # The training forward on oneDNN; returns (y, mean, var, inv_std) or None.
    if not _onednn_applies(node, x, gamma):
        return None
    y, mean, var = _onednn.batch_normalization(x, gamma, beta, node.eps)
    return y, mean, var, _inv_std(var, node.eps)


def _grad_onednn(node, x, gamma, gy, layout, dtype):
    # The gradient on oneDNN; returns (gx, ggamma, gbeta) or None. oneDNN
    # takes the variance and eps; the node keeps inv_std: var + eps given as
    # the variance, with no eps.
    if not _onednn_applies(node, x, gamma) or gy.dtype != x.dtype:
        return None
    inv_std = node.inv_std.astype(numpy.float64)
    var_eps = 1.0 / (inv_std * inv_std)
    return _onednn.batch_normalization_grad(x, gamma, gy, node.mean, var_eps, 0.0)


def _inv_std(var, eps):
    # 1 / sqrt(var + eps), in place on a new array.
    inv_std = var + eps
    numpy.sqrt(inv_std, out=inv_std)
    numpy.reciprocal(inv_std, out=inv_std)
    return inv_std


def _first_path(paths, args):
    # The result of the first fast path that applies (returns non-None).
    for path in paths:
        result = path(*args)
        if result is not None:
            return result
    return None


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
    fast = _first_path(
        (_forward_onednn, _forward_blocked, _forward_channels_last),
        (node, x, gamma, beta, layout, dtype),
    )
    if fast is not None:
        y, mean, var, inv_std = fast
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
    fast = _first_path(
        (_grad_onednn, _grad_blocked, _grad_channels_last),
        (node, x, gamma, gy, layout, dtype),
    )
    if fast is not None:
        gx, ggamma, gbeta = fast
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
    ``AFFINE_CHUNK_BYTES``; a channels-last ``x`` from ``BLOCKED_MIN``
    elements by rows on the CPU team, see ``CHUNK_DIVISOR``), in the memory
    order of ``x``. Sets ``axis``,
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
    node.inv_std = inv_std
    node.retain_inputs((0, 1, 3, 4))
    if x.size >= BLOCKED_MIN:
        rows = cpu_moments.channels_last(xv, y)
        if rows is not None:
            _affine_rows(*rows, scale, shift, dtype)
            return (y.reshape(x.shape),)
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
    return (y.reshape(x.shape),)
