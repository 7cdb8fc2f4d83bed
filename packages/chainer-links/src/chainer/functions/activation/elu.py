from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class ELU(function_node.FunctionNode):
    """Exponential linear unit."""

    def __init__(self, alpha=1.0):
        self.alpha = float(alpha)

    @type_check.fast_path(type_check.single_float_input)
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        dtype = x.dtype.type
        # expm1 only sees non-positive values, so it cannot overflow.
        neg = xp.expm1(xp.minimum(x, dtype(0)))
        neg *= dtype(self.alpha)
        y = xp.where(x >= 0, x, neg)
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        neg = x.array < 0
        # dy/dx is 1 for x >= 0 and alpha * exp(x) = y + alpha for x < 0.
        const = neg * x.dtype.type(self.alpha)
        const += ~neg
        return (gy * (y * neg + const),)


def elu(x, alpha=1.0):
    """Exponential Linear Unit function.

    .. math::
        f(x) = \\left \\{ \\begin{array}{ll}
        x & {\\rm if}~ x \\ge 0 \\\\
        \\alpha (\\exp(x) - 1) & {\\rm if}~ x < 0,
        \\end{array} \\right.

    See: https://arxiv.org/abs/1511.07289

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.
        alpha (float): Parameter :math:`\\alpha`.

    Returns:
        ~chainer.Variable: Output variable. A :math:`(s_1, s_2, ..., s_N)`-shaped
        float array.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[-1, 0], [2, -3]], np.float32)
        >>> F.elu(x, alpha=1.0).array.round(4)
        array([[-0.6321,  0.    ],
               [ 2.    , -0.9502]], dtype=float32)
    """
    (y,) = ELU(alpha).apply((x,))
    return y
