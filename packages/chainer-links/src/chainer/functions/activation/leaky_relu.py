from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class LeakyReLU(function_node.FunctionNode):
    """Leaky rectified linear unit."""

    def __init__(self, slope=0.2):
        self.slope = float(slope)

    @type_check.fast_path(type_check.single_float_input)
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        y = xp.where(x < 0, x * x.dtype.type(self.slope), x)
        # With a positive slope y > 0 exactly where x > 0, so the output
        # (usually kept by the next layer anyway) tells the branch.
        if self.slope > 0:
            self.retain_outputs((0,))
        else:
            self.retain_inputs((0,))
        return (y,)

    def backward(self, indexes, grad_outputs):
        if self.slope > 0:
            (v,) = self.get_retained_outputs()
        else:
            (v,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        # NOTE: the gradient at 0 is the slope, as in Chainer.
        pos = v.array > 0
        coeff = pos * v.dtype.type(1 - self.slope)
        coeff += v.dtype.type(self.slope)
        return (gy * coeff,)


def leaky_relu(x, slope=0.2):
    """Leaky Rectified Linear Unit function.

    .. math::
        f(x) = \\left \\{ \\begin{array}{ll}
        x & {\\rm if}~ x \\ge 0 \\\\
        ax & {\\rm if}~ x < 0,
        \\end{array} \\right.

    where :math:`a` is a configurable slope value.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.
        slope (float): Slope value :math:`a`.

    Returns:
        ~chainer.Variable: Output variable. A :math:`(s_1, s_2, ..., s_N)`-shaped
        float array.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[-1, 0], [2, -3], [-2, 1]], np.float32)
        >>> F.leaky_relu(x, slope=0.2).array
        array([[-0.2,  0. ],
               [ 2. , -0.6],
               [-0.4,  1. ]], dtype=float32)
    """
    (y,) = LeakyReLU(slope).apply((x,))
    return y
