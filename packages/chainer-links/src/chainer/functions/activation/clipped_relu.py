import numbers

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class ClippedReLU(function_node.FunctionNode):
    """Rectified linear unit clipped at ``z``."""

    def __init__(self, z):
        if isinstance(z, bool) or not isinstance(z, numbers.Real):
            raise TypeError(f"z must be a float value, got {type(z).__name__}")
        if not z > 0:
            raise ValueError(f"z must be positive, got {z}")
        self.cap = float(z)

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
        return (xp.clip(x, dtype(0), dtype(self.cap)),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        x = x.array
        # NOTE: the gradient is 0 at both kinks (x == 0 and x == z).
        return (gy * ((x > 0) & (x < self.cap)),)


def clipped_relu(x, z=20.0):
    """Clipped Rectifier Unit function.

    For a clipping value :math:`z (> 0)`, it computes

    .. math:: \\text{ClippedReLU}(x, z) = \\min(\\max(0, x), z).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.
        z (float): Clipping value (positive).

    Returns:
        ~chainer.Variable: Output variable. A :math:`(s_1, s_2, ..., s_N)`-shaped
        float array.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([-20.0, 5.0, 30.0], np.float32)
        >>> F.clipped_relu(x, z=10.0).array
        array([ 0.,  5., 10.], dtype=float32)
    """
    (y,) = ClippedReLU(z).apply((x,))
    return y
