"""Kernel overrides of the softmax family (Softmax, LogSoftmax, SoftmaxCrossEntropy).

Each ``kernel(node, inputs)`` returns what ``node.forward(inputs)`` returns for
CuPy arrays and retains (and sets) what it does; cases a kernel does not cover
go to ``node.forward``.
"""

from __future__ import annotations

import math

import cupy
import numpy

from chainer_cuda._kernels import _compiled
from chainer_cuda._kernels import sources

_FIRST = (0,)


def _row_wise(node, inputs, source):
    (x,) = inputs
    if x.size == 0:
        return node.forward(inputs)
    axis = node.axis + x.ndim if node.axis < 0 else node.axis
    k = x.shape[axis]
    b = math.prod(x.shape[axis + 1 :])
    x = cupy.ascontiguousarray(x)
    y = cupy.empty_like(x)
    _compiled.get(source)(x, k, b, y, size=x.size // k)
    node.retain_outputs(_FIRST)
    return (y,)


def softmax(node, inputs):
    """Forward of ``Softmax`` along any axis, fused; retains the output.

    Args:
        node (~chainer.FunctionNode): The Softmax node (holds ``axis``).
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    return _row_wise(node, inputs, sources.SOFTMAX)


def log_softmax(node, inputs):
    """Forward of ``LogSoftmax`` along any axis, fused; retains the output.

    Args:
        node (~chainer.FunctionNode): The LogSoftmax node (holds ``axis``).
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    return _row_wise(node, inputs, sources.LOG_SOFTMAX)


def softmax_cross_entropy(node, inputs):
    """Forward of ``SoftmaxCrossEntropy``; the 2-d integer-label mean path fused.

    It sets what the node's 2-d path sets for backward (``y``,
    ``flat_labels``, ``coeff``, ``row_weight``, ``soft_target``) and retains
    both inputs; other cases (soft targets, class weights, ``reduce='no'``, no cached
    score, double backprop) run ``node.forward``. The labels are checked
    first, as on every path (the kernel reads ``x`` at a flat index built
    from them): one reduction and one synchronisation.

    Args:
        node (~chainer.FunctionNode): The SoftmaxCrossEntropy node.
        inputs (tuple): ``(x, t)``.

    Returns:
        tuple: ``(loss,)``, a 0-d array of ``x``'s dtype.
    """
    x, t = inputs
    if (
        x.ndim != 2
        or t.dtype.kind != "i"
        or x.size == 0
        or node.class_weight is not None
        or node.reduce != "mean"
        or not node.cache_score
        or node.enable_double_backprop
    ):
        return node.forward(inputs)
    n, k = x.shape
    ignore_label = node.ignore_label
    # The catalogue's check: a LabelRangeError for a label that is neither
    # a class nor ignore_label.
    labels, plain = node.check_hard_labels(t, k)
    node.retain_inputs((0, 1))
    node.soft_target = False
    if plain:
        count = n
    else:
        valid = t != ignore_label
        count = int(cupy.count_nonzero(valid))
    flat = node.flat_label_indexes(labels, k)
    x = cupy.ascontiguousarray(x)
    y = cupy.empty_like(x)
    log_p = cupy.empty(n, x.dtype)
    _compiled.get(sources.SOFTMAX_CROSS_ENTROPY_2D)(
        x, labels.astype(numpy.int64, copy=False), k, 1, y, log_p
    )
    if count != n:
        node.row_weight = valid.astype(x.dtype)
        log_p *= node.row_weight
    node.y = y
    node.flat_labels = flat
    node.coeff = 1.0 / max(count if node.normalize else n, 1)
    acc = numpy.float32 if x.dtype == numpy.float16 else x.dtype
    total = float(log_p.sum(dtype=acc))
    return (cupy.array(total * -node.coeff, dtype=x.dtype),)


def softmax_cross_entropy_grad(node, inputs):
    """Forward of SoftmaxCrossEntropy's gradient node (no double backprop), fused.

    ``gx = (y - onehot(t)) * row_weight * gy * coeff`` from what the fused
    2-d forward kept; other cases run ``node.forward``.

    Args:
        node (~chainer.FunctionNode): The gradient node (holds the
            SoftmaxCrossEntropy node, the cached softmax and ``t``).
        inputs (tuple): ``(x, gy)``.

    Returns:
        tuple: ``(gx,)``.
    """
    func = node.func
    y = node.y
    _, gy = inputs
    if func.flat_labels is None or func.reduce != "mean" or y.ndim != 2:
        return node.forward(inputs)
    w = func.row_weight
    scale = gy * y.dtype.type(func.coeff)
    gx = _compiled.get(sources.SOFTMAX_CROSS_ENTROPY_GRAD_2D)(
        y,
        func.flat_labels.astype(numpy.int64, copy=False),
        y if w is None else w,
        0 if w is None else 1,
        scale.astype(y.dtype, copy=False),
        y.shape[1],
    )
    return (gx,)
