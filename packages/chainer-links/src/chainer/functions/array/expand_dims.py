from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class ExpandDims(function_node.FunctionNode):
    """Insertion of a new axis of size one."""

    def __init__(self, axis):
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"expand_dims: axis must be int, got {axis!r}")
        self.axis = axis

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        axis = type_check.make_variable(self.axis, "axis")
        if self.axis >= 0:
            type_check.expect(x_type.ndim >= axis)
        else:
            type_check.expect(x_type.ndim >= -axis - 1)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        return (xp.expand_dims(x, self.axis),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (primitive_ops.reshape(gy, self.inputs[0].shape),)


def expand_dims(x, axis):
    """Expands dimensions of an input variable without copy.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array of any shape.
        axis (int): Position of the new axis in the output; it must satisfy
            ``-x.ndim - 1 <= axis <= x.ndim``.

    Returns:
        ~chainer.Variable: Variable of ndim ``x.ndim + 1`` with a new axis of
        size one at ``axis``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.array([1, 2, 3], dtype=np.float32)
        >>> F.expand_dims(x, axis=0).shape
        (1, 3)
    """
    (y,) = ExpandDims(axis).apply((x,))
    return y
