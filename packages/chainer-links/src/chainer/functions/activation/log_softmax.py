from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.activation.softmax import _float_with_axis
from chainer.functions.math import exponential
from chainer.utils import type_check


def _log_softmax(x, axis, xp):
    # log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the maximum, which
    # neither overflows nor takes the log of an underflowed zero.
    y = x - x.max(axis=axis, keepdims=True)
    e = xp.exp(y)
    y -= xp.log(e.sum(axis=axis, keepdims=True))
    return y


class LogSoftmax(function_node.FunctionNode):
    """Logarithm of the softmax along an axis."""

    def __init__(self, axis=1):
        self.axis = axis

    @type_check.fast_path(_float_with_axis)
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        axis = type_check.make_variable(self.axis, "axis")
        type_check.expect(
            x_type.dtype.kind == "f",
            -x_type.ndim <= axis,
            axis < x_type.ndim,
        )

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self.retain_outputs((0,))
        return (_log_softmax(x, self.axis, xp),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        # exp(y) is the softmax of x.
        p = exponential.exp(y)
        return (gy - p * primitive_ops.sum(gy, axis=self.axis, keepdims=True),)


def log_softmax(x, axis=1):
    """Channel-wise log-softmax function.

    This function computes the logarithm of the softmax along an axis. Let
    :math:`c = (c_1, c_2, \\dots, c_D)` be the slice of ``x`` along the axis.
    For each slice :math:`c`, it computes the logarithm of
    :math:`f(c) = {\\exp(c) \\over \\sum_{d} \\exp(c_d)}`.

    This is theoretically equivalent to ``log(softmax(x))`` but more stable:
    ``softmax(x)`` may underflow to ``0`` when ``x`` is very negative, and its
    logarithm is then ``-inf``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`n`-dimensional (:math:`n \\geq 2`) float array.
        axis (int): The axis along which the log-softmax is computed.

    Returns:
        ~chainer.Variable: Output variable. A :math:`n`-dimensional
        (:math:`n \\geq 2`) float array, which is the same shape with x.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[0, 1, 2], [0, 2, 4]], np.float32)
        >>> F.log_softmax(x).array.round(4)
        array([[-2.4076, -1.4076, -0.4076],
               [-4.1429, -2.1429, -0.1429]], dtype=float32)
        >>> np.allclose(F.log_softmax(x).array, np.log(F.softmax(x).array))
        True
    """
    (y,) = LogSoftmax(axis=axis).apply((x,))
    return y
