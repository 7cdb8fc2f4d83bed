from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class HardSigmoid(function_node.FunctionNode):
    """Piecewise-linear approximation of the sigmoid."""

    @type_check.fast_path(type_check.single_float_input)
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        dtype = x.dtype.type
        y = x * dtype(0.2)
        y += dtype(0.5)
        return (xp.clip(y, dtype(0), dtype(1)),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        x = x.array
        slope = ((x > -2.5) & (x < 2.5)) * x.dtype.type(0.2)
        return (gy * slope,)


def hard_sigmoid(x):
    """Elementwise hard-sigmoid function.

    .. math::
        f(x) = \\left \\{ \\begin{array}{ll}
        0 & {\\rm if}~ x < -2.5 \\\\
        0.2 x + 0.5 & {\\rm if}~ -2.5 < x < 2.5 \\\\
        1 & {\\rm if}~ 2.5 < x.
        \\end{array} \\right.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.

    Returns:
        ~chainer.Variable: Output variable. A :math:`(s_1, s_2, ..., s_N)`-shaped
        float array.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([-3.0, -2.0, 0.0, 2.0, 3.0], np.float32)
        >>> F.hard_sigmoid(x).array.round(4)
        array([0. , 0.1, 0.5, 0.9, 1. ], dtype=float32)
    """
    (y,) = HardSigmoid().apply((x,))
    return y
