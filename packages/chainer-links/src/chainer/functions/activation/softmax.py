from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _float_with_axis(node, xs):
    # One float array that has the axis (LogSoftmax's check uses it too).
    if len(xs) != 1:
        return False
    x = xs[0]
    return x.dtype.kind == "f" and -x.ndim <= node.axis < x.ndim


class Softmax(function_node.FunctionNode):
    """Softmax along an axis."""

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
        # Shifting by the maximum keeps exp from overflowing.
        y = x - x.max(axis=self.axis, keepdims=True)
        xp.exp(y, out=y)
        y /= y.sum(axis=self.axis, keepdims=True)
        self.retain_outputs((0,))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        gx = y * gy
        return (gx - y * primitive_ops.sum(gx, axis=self.axis, keepdims=True),)


def softmax(x, axis=1):
    """Softmax function along an axis.

    This function computes its softmax along an axis. Let
    :math:`c = (c_1, c_2, \\dots, c_D)` be the slice of ``x`` along with
    the axis. For each slice :math:`c`, it computes the function :math:`f(c)`
    defined as :math:`f(c) = {\\exp(c) \\over \\sum_{d} \\exp(c_d)}`.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`n`-dimensional (:math:`n \\geq 2`) float array.
        axis (int): The axis along which the softmax is to be computed.

    Returns:
        ~chainer.Variable: Output variable. A :math:`n`-dimensional
        (:math:`n \\geq 2`) float array, which is the same shape with x.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[0, 1, 2], [0, 2, 4]], np.float32)
        >>> y = F.softmax(x, axis=1)
        >>> y.array.round(4)
        array([[0.09  , 0.2447, 0.6652],
               [0.0159, 0.1173, 0.8668]], dtype=float32)
        >>> y.array.sum(axis=1).round(4)
        array([1., 1.], dtype=float32)
    """
    (y,) = Softmax(axis=axis).apply((x,))
    return y
