"""Kernel overrides of N-d max and average pooling and their gradients.

One thread per output element for the forward passes, and one per input
element for the gradients, which gather from the windows that read it (no
atomics). Max pooling finds the window argmax in its forward pass and keeps
it where ``MaxPoolingND`` keeps its lazily found one, so ``indexes``,
``MaxPoolingNDGrad`` and ``MaxPoolingNDWithIndexes`` read it from either
path. One, two and three spatial axes are covered; more go to
``node.forward``.
"""

from __future__ import annotations

import math

import cupy
import numpy

from chainer_cuda._kernels import _compiled
from chainer_cuda._kernels import sources

_MAX_NDIM = 3


def _padded(values, fill):
    # Per-axis values padded in front to three spatial axes.
    return (fill,) * (_MAX_NDIM - len(values)) + tuple(values)


def _geometry(p):
    # The int32 scalars of the kernels' geometry, from a node whose
    # setup_geometry() has run.
    return (
        *_padded(p.in_size, 1),
        *_padded(p.out_size, 1),
        *_padded(p.ksize, 1),
        *_padded(p.stride, 1),
        *_padded(p.pad, 0),
    )


def _flat(a):
    return cupy.ascontiguousarray(a).reshape(-1)


def max_pooling(node, inputs):
    """Forward of ``MaxPoolingND`` (and ``MaxPooling2D``): maxima and argmax.

    Sets the window geometry as the node's forward does and stores the
    window-local argmax (``uint8``, ``int32`` beyond 256 taps) as the
    node's computed ``indexes``.

    Args:
        node (~chainer.FunctionNode): The max pooling node.
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    (x,) = inputs
    if node.ndim > _MAX_NDIM:
        return node.forward(inputs)
    node.setup_geometry(x.shape[2:])
    shape = x.shape[:2] + node.out_size
    taps = math.prod(node.ksize)
    y = cupy.empty(shape, dtype=x.dtype)
    idx = cupy.empty(shape, dtype=numpy.uint8 if taps <= 256 else numpy.int32)
    _compiled.get(sources.MAX_POOL)(_flat(x), *_geometry(node), y, idx)
    node.set_indexes(idx)
    return (y,)


def max_pooling_grad(node, inputs):
    """Forward of ``MaxPoolingNDGrad``: routes ``gy`` to each window's argmax.

    Args:
        node (~chainer.FunctionNode): The MaxPoolingNDGrad node (holds the
            pooling node).
        inputs (tuple): ``(gy,)``.

    Returns:
        tuple: ``(gx,)`` of the pooling input's shape.
    """
    (gy,) = inputs
    p = node.mpool
    if p.ndim > _MAX_NDIM:
        return node.forward(inputs)
    gx = cupy.empty(gy.shape[:2] + p.in_size, dtype=gy.dtype)
    _compiled.get(sources.MAX_POOL_GRAD)(
        _flat(gy), _flat(p.compact_indexes()), *_geometry(p), gx
    )
    return (gx,)


def max_pooling_with_indexes(node, inputs):
    """Forward of ``MaxPoolingNDWithIndexes``: each window's element at the argmax.

    Args:
        node (~chainer.FunctionNode): The MaxPoolingNDWithIndexes node (holds
            the pooling node).
        inputs (tuple): ``(x,)`` of the pooling input's shape.

    Returns:
        tuple: ``(y,)`` of the pooling output's shape.
    """
    (x,) = inputs
    p = node.mpool
    if p.ndim > _MAX_NDIM:
        return node.forward(inputs)
    idx = p.compact_indexes()
    y = cupy.empty(x.shape[:2] + p.out_size, dtype=x.dtype)
    _compiled.get(sources.MAX_POOL_GATHER)(_flat(x), _flat(idx), *_geometry(p), y)
    return (y,)


def average_pooling(node, inputs):
    """Forward of ``AveragePoolingND`` (and ``AveragePooling2D``): window means.

    With ``pad_value=0`` the padding counts as zeros in every window; with
    ``None`` each window is divided by the number of its elements inside the
    input. Sets the window geometry as the node's forward does.

    Args:
        node (~chainer.FunctionNode): The average pooling node.
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    (x,) = inputs
    if node.ndim > _MAX_NDIM:
        return node.forward(inputs)
    node.setup_geometry(x.shape[2:])
    y = cupy.empty(x.shape[:2] + node.out_size, dtype=x.dtype)
    count_pad = int(node.pad_value is not None)
    _compiled.get(sources.AVERAGE_POOL)(_flat(x), count_pad, *_geometry(node), y)
    return (y,)


def average_pooling_grad(node, inputs):
    """Forward of ``AveragePoolingNDGrad``: spreads ``gy`` evenly over each window.

    Args:
        node (~chainer.FunctionNode): The AveragePoolingNDGrad node (holds
            the pooling node).
        inputs (tuple): ``(gy,)``.

    Returns:
        tuple: ``(gx,)`` of the pooling input's shape.
    """
    (gy,) = inputs
    p = node.apool
    if p.ndim > _MAX_NDIM:
        return node.forward(inputs)
    gx = cupy.empty(gy.shape[:2] + p.in_size, dtype=gy.dtype)
    count_pad = int(p.pad_value is not None)
    _compiled.get(sources.AVERAGE_POOL_GRAD)(_flat(gy), count_pad, *_geometry(p), gx)
    return (gx,)
