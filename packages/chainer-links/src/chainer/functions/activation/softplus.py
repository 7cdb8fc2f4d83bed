from chainer import backend
from chainer import function_node
from chainer.functions.activation import sigmoid
from chainer.utils import type_check


class Softplus(function_node.FunctionNode):
    """Softplus with sharpness ``beta``."""

    def __init__(self, beta=1.0):
        self.beta = float(beta)

    @type_check.fast_path(type_check.single_float_input)
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        dtype = x.dtype.type
        bx = x * dtype(self.beta)
        # max(bx, 0) + log1p(exp(-|bx|)) cannot overflow; log1p(exp(bx)) can.
        y = xp.log1p(xp.exp(-abs(bx)))
        y += xp.maximum(bx, dtype(0))
        y *= dtype(1.0 / self.beta)
        self.retain_inputs((0,))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        return (gy * sigmoid.sigmoid(x * self.beta),)


def softplus(x, beta=1.0):
    """Elementwise softplus function, a smooth approximation of ReLU.

    .. math:: f(x)=\\frac{1}{\\beta}\\log(1 + \\exp(\\beta x)),

    where :math:`\\beta` is a parameter; the larger it is, the closer the
    function is to ReLU.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.
        beta (float): Parameter :math:`\\beta`.

    Returns:
        ~chainer.Variable: Output variable. A :math:`(s_1, s_2, ..., s_N)`-shaped
        float array.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([-1, 0, 100], np.float32)
        >>> F.softplus(x).array.round(4)
        array([  0.3133,   0.6931, 100.    ], dtype=float32)
    """
    (y,) = Softplus(beta).apply((x,))
    return y
