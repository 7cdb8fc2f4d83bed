"""Kernel overrides of the activation FunctionNodes (forward passes).

Each ``kernel(node, inputs)`` returns what ``node.forward(inputs)`` returns for
CuPy arrays and retains the same inputs/outputs.
"""

from __future__ import annotations

from chainer_cuda._kernels import _compiled
from chainer_cuda._kernels import sources

_FIRST = (0,)


def relu(node, inputs):
    """Forward of ``ReLU``: ``max(x, 0)``; retains the output.

    Args:
        node (~chainer.FunctionNode): The ReLU node.
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    (x,) = inputs
    y = _compiled.get(sources.RELU)(x)
    node.retain_outputs(_FIRST)
    return (y,)


def relu_grad(node, inputs):
    """Forward of ``ReLUGrad``: ``gy * mask``.

    Args:
        node (~chainer.FunctionNode): The ReLUGrad node (holds ``mask``).
        inputs (tuple): ``(gy,)``.

    Returns:
        tuple: ``(gx,)``.
    """
    (gy,) = inputs
    return (_compiled.get(sources.RELU_GRAD)(gy, node.mask),)


def sigmoid(node, inputs):
    """Forward of ``Sigmoid``; retains the output.

    Args:
        node (~chainer.FunctionNode): The Sigmoid node.
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    (x,) = inputs
    y = _compiled.get(sources.SIGMOID)(x)
    node.retain_outputs(_FIRST)
    return (y,)


def tanh(node, inputs):
    """Forward of ``Tanh``; retains the output.

    Args:
        node (~chainer.FunctionNode): The Tanh node.
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    (x,) = inputs
    y = _compiled.get(sources.TANH)(x)
    node.retain_outputs(_FIRST)
    return (y,)


def clipped_relu(node, inputs):
    """Forward of ``ClippedReLU``: ``min(max(x, 0), z)``; retains the input.

    Args:
        node (~chainer.FunctionNode): The ClippedReLU node (holds ``cap``).
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    (x,) = inputs
    node.retain_inputs(_FIRST)
    return (_compiled.get(sources.CLIPPED_RELU)(x, x.dtype.type(node.cap)),)


def leaky_relu(node, inputs):
    """Forward of ``LeakyReLU``; retains what ``forward`` retains.

    The output when the slope is positive (it tells the branch), else the
    input.

    Args:
        node (~chainer.FunctionNode): The LeakyReLU node (holds ``slope``).
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    (x,) = inputs
    y = _compiled.get(sources.LEAKY_RELU)(x, x.dtype.type(node.slope))
    if node.slope > 0:
        node.retain_outputs(_FIRST)
    else:
        node.retain_inputs(_FIRST)
    return (y,)
