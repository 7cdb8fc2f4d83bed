from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class SquaredDifference(function_node.FunctionNode):
    """Elementwise squared difference of two broadcastable inputs."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("x1", "x2"))
        x1_type, x2_type = in_types
        type_check.expect(x1_type.dtype.kind == "f")
        type_check.expect(x1_type.dtype == x2_type.dtype)
        type_check.expect_broadcast_shapes(x1_type.shape, x2_type.shape)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        diff = x1 - x2
        return (diff * diff,)

    def backward(self, indexes, grad_outputs):
        x1, x2 = self.get_retained_inputs()
        (gy,) = grad_outputs
        gx = gy * 2 * (x1 - x2)
        ret = []
        if 0 in indexes:
            ret.append(_sum_to(gx, x1.shape))
        if 1 in indexes:
            ret.append(_sum_to(-gx, x2.shape))
        return ret


def _sum_to(g, shape):
    return g if g.shape == shape else primitive_ops.sum_to(g, shape)


def squared_difference(x1, x2):
    """Squared difference of two inputs, elementwise.

    .. math:: y = (x_1 - x_2)^2

    Args:
        x1 (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        x2 (~chainer.Variable or :ref:`ndarray`): Float array of the same
            dtype, broadcastable with ``x1``.

    Returns:
        ~chainer.Variable: The squared difference, of the broadcast shape of
        the inputs and their dtype.
    """
    (y,) = SquaredDifference().apply((x1, x2))
    return y
