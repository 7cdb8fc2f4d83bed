from chainer import function_node
from chainer.utils import type_check


class SquaredError(function_node.FunctionNode):
    """Elementwise squared error between two arrays of the same shape."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("x0", "x1"))
        x0_type, x1_type = in_types
        type_check.expect(x0_type.dtype.kind == "f")
        type_check.expect(x0_type.dtype == x1_type.dtype)
        type_check.expect(x0_type.shape == x1_type.shape)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = x0 - x1
        return (diff * diff,)

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        (gy,) = grad_outputs
        gx0 = gy * 2 * (x0 - x1)
        ret = []
        if 0 in indexes:
            ret.append(gx0)
        if 1 in indexes:
            ret.append(-gx0)
        return ret


def squared_error(x0, x1):
    """Squared error between two arrays, elementwise.

    .. math:: y_i = (x_{0,i} - x_{1,i})^2

    Args:
        x0 (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        x1 (~chainer.Variable or :ref:`ndarray`): Float array of the same
            shape and dtype as ``x0``.

    Returns:
        ~chainer.Variable: The squared error, of the shape and dtype of the
        inputs.
    """
    (y,) = SquaredError().apply((x0, x1))
    return y
