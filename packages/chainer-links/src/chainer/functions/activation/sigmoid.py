from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class Sigmoid(function_node.FunctionNode):
    """Logistic sigmoid."""

    @type_check.fast_path(type_check.single_float_input)
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        half = x.dtype.type(0.5)
        # sigmoid(x) = (tanh(x / 2) + 1) / 2 never overflows, unlike 1 / (1 + exp(-x)).
        y = xp.tanh(x * half)
        y *= half
        y += half
        self.retain_outputs((0,))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        return (gy * (y * (1 - y)),)


def sigmoid(x):
    """Elementwise sigmoid logistic function.

    .. math:: f(x)=(1 + \\exp(-x))^{-1}.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.

    Returns:
        ~chainer.Variable: Output variable. A :math:`(s_1, s_2, ..., s_N)`-shaped
        float array.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([-2, 0, 2], np.float32)
        >>> F.sigmoid(x).array.round(4)
        array([0.1192, 0.5   , 0.8808], dtype=float32)
    """
    (y,) = Sigmoid().apply((x,))
    return y
