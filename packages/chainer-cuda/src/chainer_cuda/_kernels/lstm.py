"""Kernel overrides of the LSTM cell: ``LSTM`` and ``LSTMGrad`` forward passes.

Gate order a, i, f, o; ``x`` holds them interleaved per unit, as
``x.reshape(B, H, 4, R...)``. Both kernels run one thread per element of the
batch rows of the cell state and match the array-module path's rounding.
"""

from __future__ import annotations

import math

import cupy

from chainer_cuda._kernels import _compiled
from chainer_cuda._kernels import sources


def lstm_forward(node, inputs):
    """Forward of ``LSTM``: returns ``(c, h)``.

    Caches the planar gate activations and ``tanh(c)`` on the node (read by
    ``LSTMGrad``) and retains inputs ``(c_prev, x)`` and output ``c``, as
    ``LSTM.forward`` does.

    Args:
        node (~chainer.FunctionNode): The LSTM node.
        inputs (tuple): ``(c_prev, x)``.

    Returns:
        tuple: ``(c, h)``.
    """
    c_prev, x = inputs
    c_prev = cupy.ascontiguousarray(c_prev)
    x = cupy.ascontiguousarray(x)
    batch = x.shape[0]
    state_shape = (batch, *c_prev.shape[1:])
    rest = math.prod(c_prev.shape[2:])
    c = cupy.empty_like(c_prev) if batch == c_prev.shape[0] else c_prev.copy()
    h = cupy.empty(state_shape, x.dtype)
    gates = cupy.empty((4, *state_shape), x.dtype)
    tanh_c = cupy.empty(state_shape, x.dtype)
    _compiled.get(sources.LSTM_FORWARD)(c_prev, x, rest, c, h, gates, tanh_c)
    node.gates = gates
    node.tanh_c = tanh_c
    node.retain_inputs((0, 1))
    node.retain_outputs((0,))
    return c, h


def lstm_backward(node, inputs):
    """Forward of ``LSTMGrad`` (the LSTM backward): returns ``(gc_prev, gx)``.

    Reads the node's cached ``gates`` and ``tanh_c`` and retains all five
    inputs, as ``LSTMGrad.forward`` does.

    Args:
        node (~chainer.FunctionNode): The LSTMGrad node.
        inputs (tuple): ``(c_prev, x, c, gc, gh)``.

    Returns:
        tuple: ``(gc_prev, gx)``.
    """
    if node.gates is None or node.tanh_c is None:
        # An ``LSTMGrad()`` built without the LSTM node's cache: the array-module
        # path computes the gates itself.
        return node.forward(inputs)
    c_prev, x, _c, gc, gh = inputs
    batch = x.shape[0]
    full = c_prev.shape[0]
    rest = math.prod(c_prev.shape[2:])
    c_prev_c = cupy.ascontiguousarray(c_prev)
    gc_c = cupy.ascontiguousarray(gc)
    gates = cupy.ascontiguousarray(node.gates)
    tanh_c = cupy.ascontiguousarray(node.tanh_c)
    gc_prev = cupy.empty_like(c_prev_c)
    if batch < full:
        gc_prev[batch:] = gc[batch:]
    gx = cupy.empty(x.shape, x.dtype)
    _compiled.get(sources.LSTM_BACKWARD)(
        c_prev_c, gates, tanh_c, gc_c, gh, rest, gc_prev, gx
    )
    node.retain_inputs((0, 1, 2, 3, 4))
    return gc_prev, gx
