from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class Tanh(function_node.FunctionNode):
    """Hyperbolic tangent."""

    @type_check.fast_path(type_check.single_float_input)
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self.retain_outputs((0,))
        return (xp.tanh(x),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        return (gy * (1 - y * y),)


def tanh(x):
    """Elementwise hyperbolic tangent function.

    .. math:: f(x)=\\tanh(x).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.

    Returns:
        ~chainer.Variable: Output variable. A :math:`(s_1, s_2, ..., s_N)`-shaped
        float array.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([-1, 0, 1], np.float32)
        >>> F.tanh(x).array.round(4)
        array([-0.7616,  0.    ,  0.7616], dtype=float32)
    """
    (y,) = Tanh().apply((x,))
    return y
