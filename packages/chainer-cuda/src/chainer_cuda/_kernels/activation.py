"""Kernel overrides of the activation FunctionNodes (forward passes).

Each ``kernel(node, inputs)`` returns what ``node.forward(inputs)`` returns for
CuPy arrays and retains the same inputs/outputs.
"""

from __future__ import annotations

from chainer_cuda._kernels import _compiled
from chainer_cuda._kernels import sources

_FIRST = (0,)


def _broadcast_shape(x_ndim, param_shape):
    # F.swish's beta and F.prelu's W cover the axes right after the batch
    # axis (their documented shapes); the other axes broadcast.
    return (1, *param_shape) + (1,) * (x_ndim - 1 - len(param_shape))


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
    """Forward of ``ReLUGrad``: ``gy * (y > 0)``.

    Args:
        node (~chainer.FunctionNode): The ReLUGrad node (holds ReLU's output
            ``y``).
        inputs (tuple): ``(gy,)``.

    Returns:
        tuple: ``(gx,)``.
    """
    (gy,) = inputs
    return (_compiled.get(sources.RELU_GRAD)(gy, node.y),)


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


def elu(node, inputs):
    """Forward of ``ELU``; retains the input and the output.

    Args:
        node (~chainer.FunctionNode): The ELU node (holds ``alpha``).
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    (x,) = inputs
    y = _compiled.get(sources.ELU)(x, x.dtype.type(node.alpha))
    node.retain_inputs(_FIRST)
    node.retain_outputs(_FIRST)
    return (y,)


def softplus(node, inputs):
    """Forward of ``Softplus``; retains the input.

    Args:
        node (~chainer.FunctionNode): The Softplus node (holds ``beta``).
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    (x,) = inputs
    dtype = x.dtype.type
    y = _compiled.get(sources.SOFTPLUS)(x, dtype(node.beta), dtype(1.0 / node.beta))
    node.retain_inputs(_FIRST)
    return (y,)


def hard_sigmoid(node, inputs):
    """Forward of ``HardSigmoid``: ``clip(0.2 x + 0.5, 0, 1)``; retains the input.

    Args:
        node (~chainer.FunctionNode): The HardSigmoid node.
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``.
    """
    (x,) = inputs
    dtype = x.dtype.type
    node.retain_inputs(_FIRST)
    return (_compiled.get(sources.HARD_SIGMOID)(x, dtype(0.2), dtype(0.5)),)


def swish(node, inputs):
    """Forward of ``Swish``: ``x * sigmoid(beta x)``; retains both inputs.

    Args:
        node (~chainer.FunctionNode): The Swish node.
        inputs (tuple): ``(x, beta)``.

    Returns:
        tuple: ``(y,)``.
    """
    x, beta = inputs
    node.retain_inputs((0, 1))
    beta = beta.reshape(_broadcast_shape(x.ndim, beta.shape))
    return (_compiled.get(sources.SWISH)(x, beta),)


def prelu(node, inputs):
    """Forward of ``PReLUFunction``; retains both inputs.

    Args:
        node (~chainer.FunctionNode): The PReLU node.
        inputs (tuple): ``(x, W)``.

    Returns:
        tuple: ``(y,)``.
    """
    x, W = inputs
    node.retain_inputs((0, 1))
    W = W.reshape(_broadcast_shape(x.ndim, W.shape))
    return (_compiled.get(sources.PRELU)(x, W),)
