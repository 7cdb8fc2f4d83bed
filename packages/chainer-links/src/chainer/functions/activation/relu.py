from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class ReLU(function_node.FunctionNode):
    """Rectified linear unit."""

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        y = xp.maximum(x, x.dtype.type(0))
        self.retain_outputs((0,))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        # NOTE: the gradient at 0 is 0, as in Chainer.
        return (gy * (y.array > 0),)


def relu(x):
    """Rectified Linear Unit function.

    .. math:: f(x) = \\max(0, x)

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.

    Returns:
        ~chainer.Variable: Output variable. A :math:`(s_1, s_2, ..., s_N)`-shaped
        float array.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[-1, 0], [2, -3], [-2, 1]], np.float32)
        >>> F.relu(x).array
        array([[0., 0.],
               [2., 0.],
               [0., 1.]], dtype=float32)
    """
    (y,) = ReLU().apply((x,))
    return y
