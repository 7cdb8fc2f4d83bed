"""Kernel overrides of batch normalization (training, its gradient, fixed).

The array-module path views ``x`` as ``(a, channels, b)`` when the channel
axes are adjacent (see ``chainer.functions.normalization.moments.Layout``);
these kernels cover that case, with one reduction for the mean, one for the
variance and one elementwise pass, and run ``node.forward`` otherwise.

Per-channel sums run in two passes: over the contiguous ``b`` axis (one
output per ``(a, channel)`` pair, enough blocks to fill the GPU), then over
``a``. CuPy's single reduction over axes ``(0, 2)`` gives each channel one
block, which left an H100 mostly idle (1.2 ms instead of tens of µs for a
64x32x32x32 batch).
"""

from __future__ import annotations

import cupy

from chainer.functions.normalization import moments
from chainer_cuda._kernels import _compiled
from chainer_cuda._kernels import sources


def _channel_sum(partial):
    # ``partial`` holds the sums over the b axis, shape (a, channels).
    return partial.sum(axis=0)


def batch_normalization(node, inputs):
    """Forward of ``BatchNormalization`` (batch statistics), fused.

    Sets ``mean``, ``inv_std``, ``layout`` and ``axis`` as the node's forward
    does, updates the running statistics and retains ``x`` and ``gamma``.

    Args:
        node (~chainer.FunctionNode): The BatchNormalization node.
        inputs (tuple): ``(x, gamma, beta)``.

    Returns:
        tuple: ``(y,)``.
    """
    x, gamma, beta = inputs
    axis = moments.canonical_axis(node.axis, x.ndim, gamma.ndim)
    layout = moments.get_layout(x.shape, axis)
    if layout.view_shape is None or layout.count == 0 or x.size == 0:
        return node.forward(inputs)
    node.axis = axis
    dtype = moments.compute_dtype(x.dtype, gamma.dtype)
    xv = layout.view(x)
    m = layout.count
    inv_m = 1.0 / m
    mean = _channel_sum(xv.sum(axis=2, dtype=dtype)) * inv_m
    mean_b = layout.expand(mean)
    var = _channel_sum(
        _compiled.get_reduction(sources.BN_SQUARED_DEVIATION)(xv, mean_b, axis=2)
    )
    var *= inv_m
    inv_std = var + node.eps
    cupy.sqrt(inv_std, out=inv_std)
    cupy.reciprocal(inv_std, out=inv_std)
    scale = (gamma.ravel() * inv_std).astype(dtype, copy=False)
    y = _compiled.get(sources.BN_NORMALIZE)(
        xv,
        mean_b,
        layout.expand(scale),
        layout.expand(beta.ravel().astype(dtype, copy=False)),
    )
    node.mean = mean
    node.inv_std = inv_std
    node.layout = layout
    if node.running_mean is not None:
        decay = node.decay
        adjust = m / max(m - 1.0, 1.0)
        node.running_mean *= decay
        node.running_mean += ((1 - decay) * mean).reshape(gamma.shape)
        node.running_var *= decay
        node.running_var += ((1 - decay) * adjust * var).reshape(gamma.shape)
    node.retain_inputs((0, 1))
    return (y.reshape(x.shape),)


def batch_normalization_grad(node, inputs):
    """Forward of ``BatchNormalizationGrad``: ``(gx, ggamma, gbeta)``, fused.

    Sets ``ggamma`` and ``gbeta`` (read by its backward) and retains all
    three inputs, as the node's forward does.

    Args:
        node (~chainer.FunctionNode): The BatchNormalizationGrad node.
        inputs (tuple): ``(x, gamma, gy)``.

    Returns:
        tuple: ``(gx, ggamma, gbeta)``.
    """
    x, gamma, gy = inputs
    layout = node.layout
    if layout is None:
        layout = node.layout = moments.get_layout(x.shape, node.axis)
    if (
        layout.view_shape is None
        or layout.count == 0
        or x.size == 0
        or gy.dtype != x.dtype
    ):
        return node.forward(inputs)
    mean, inv_std = node.mean, node.inv_std
    dtype = mean.dtype
    xv = layout.view(x)
    gyv = layout.view(gy)
    inv_m = 1.0 / layout.count
    mean_b = layout.expand(mean)
    gbeta = _channel_sum(gyv.sum(axis=2, dtype=dtype))
    ggamma = _channel_sum(
        _compiled.get_reduction(sources.BN_GY_DEVIATION)(gyv, xv, mean_b, axis=2)
    )
    ggamma *= inv_std
    a = ggamma * (-inv_std * inv_m)
    c = gbeta * inv_m
    g = (gamma.ravel() * inv_std).astype(dtype, copy=False)
    gx = _compiled.get(sources.BN_GRAD_X)(
        xv, gyv, mean_b, layout.expand(a), layout.expand(c), layout.expand(g)
    )
    node.ggamma = ggamma
    node.gbeta = gbeta
    node.retain_inputs((0, 1, 2))
    return (
        gx.reshape(x.shape),
        ggamma.reshape(gamma.shape).astype(gamma.dtype, copy=False),
        gbeta.reshape(gamma.shape).astype(gamma.dtype, copy=False),
    )


def fixed_batch_normalization(node, inputs):
    """Forward of ``FixedBatchNormalization`` (given statistics), fused.

    Sets ``inv_std``, ``full`` and ``axis`` and retains ``x``, ``gamma``,
    ``mean`` and ``var``, as the node's forward does.

    Args:
        node (~chainer.FunctionNode): The FixedBatchNormalization node.
        inputs (tuple): ``(x, gamma, beta, mean, var)``.

    Returns:
        tuple: ``(y,)``.
    """
    x, gamma, beta, mean, var = inputs
    axis = moments.canonical_axis(node.axis, x.ndim, gamma.ndim)
    layout = moments.get_layout(x.shape, axis)
    if layout.view_shape is None or x.size == 0:
        return node.forward(inputs)
    node.axis = axis
    dtype = moments.compute_dtype(x.dtype, gamma.dtype)
    inv_std = var.ravel().astype(dtype)
    inv_std += node.eps
    cupy.sqrt(inv_std, out=inv_std)
    cupy.reciprocal(inv_std, out=inv_std)
    scale = (gamma.ravel() * inv_std).astype(dtype, copy=False)
    shift = (beta.ravel() - mean.ravel() * scale).astype(dtype, copy=False)
    y = _compiled.get(sources.BN_FIXED)(
        layout.view(x), layout.expand(scale), layout.expand(shift)
    )
    node.inv_std = inv_std
    node.full = layout.full
    node.retain_inputs((0, 1, 3, 4))
    return (y.reshape(x.shape),)
