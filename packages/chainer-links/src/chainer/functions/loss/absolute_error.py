from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class AbsoluteError(function_node.FunctionNode):
    """Elementwise absolute error between two arrays of the same shape."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("x0", "x1"))
        x0_type, x1_type = in_types
        type_check.expect(x0_type.dtype.kind == "f")
        type_check.expect(x0_type.dtype == x1_type.dtype)
        type_check.expect(x0_type.shape == x1_type.shape)

    def forward(self, inputs):
        x0, x1 = inputs
        xp = backend.get_array_module(x0)
        diff = x0 - x1
        # The sign is all backward needs; it is a constant of the inputs.
        self._sign = xp.sign(diff)
        return (abs(diff),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        # NOTE: the gradient at x0 == x1 is taken as 0 (sign(0) == 0).
        gx0 = gy * self._sign
        ret = []
        if 0 in indexes:
            ret.append(gx0)
        if 1 in indexes:
            ret.append(-gx0)
        return ret


def absolute_error(x0, x1):
    """Absolute error between two arrays, elementwise.

    .. math:: y_i = |x_{0,i} - x_{1,i}|

    Args:
        x0 (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        x1 (~chainer.Variable or :ref:`ndarray`): Float array of the same
            shape and dtype as ``x0``.

    Returns:
        ~chainer.Variable: The absolute error, of the shape and dtype of the
        inputs.
    """
    (y,) = AbsoluteError().apply((x0, x1))
    return y
