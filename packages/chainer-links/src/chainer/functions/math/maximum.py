"""Elementwise maximum of two arrays."""

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class Maximum(function_node.FunctionNode):
    @property
    def label(self):
        return "maximum"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x1", "x2"))
        x1_type, x2_type = in_types
        type_check.expect(x1_type.dtype.kind == "f", x2_type.dtype == x1_type.dtype)
        type_check.expect_broadcast_shapes(x1_type.shape, x2_type.shape)

    def forward(self, inputs):
        x1, x2 = inputs
        # NOTE: on ties the gradient goes to x1.
        self._x1_wins = x1 >= x2
        return (backend.get_array_module(x1).maximum(x1, x2),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        xp = backend.get_array_module(gy)
        ret = []
        for i in indexes:
            mask = self._x1_wins if i == 0 else xp.logical_not(self._x1_wins)
            gx = gy * mask
            shape = self.inputs[i].shape
            ret.append(gx if gx.shape == shape else primitive_ops.sum_to(gx, shape))
        return tuple(ret)


def maximum(x1, x2):
    """Elementwise maximum of two arrays.

    .. math:: y_i = \\max(x_{1,i}, x_{2,i})

    Args:
        x1 (~chainer.Variable or :ref:`ndarray`): Float array.
        x2 (~chainer.Variable or :ref:`ndarray`): Array of the same dtype whose
            shape broadcasts with ``x1``'s.

    Returns:
        ~chainer.Variable: The maxima, of the broadcast shape and the dtype of
        the inputs.
    """
    return Maximum().apply((x1, x2))[0]
