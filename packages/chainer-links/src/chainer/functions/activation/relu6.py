from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class ReLU6(function_node.FunctionNode):
    """Rectified linear unit clipped at 6."""

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
        return (xp.clip(x, dtype(0), dtype(6)),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        x = x.array
        # NOTE: the gradient is 0 at both kinks (x == 0 and x == 6).
        return (gy * ((x > 0) & (x < 6)),)


def relu6(x):
    """Rectifier Unit function clipped at 6.

    .. math:: \\text{ReLU6}(x) = \\min(\\max(0, x), 6)

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.

    Returns:
        ~chainer.Variable: Output variable. A :math:`(s_1, s_2, ..., s_N)`-shaped
        float array.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([-2.0, 3.0, 8.0], np.float32)
        >>> F.relu6(x).array
        array([0., 3., 6.], dtype=float32)
    """
    (y,) = ReLU6().apply((x,))
    return y
