from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer import variable
from chainer.primitive_ops.array import BroadcastTo
from chainer.utils import type_check

__all__ = ["Broadcast", "BroadcastTo", "broadcast", "broadcast_to"]


class Broadcast(function_node.FunctionNode):
    """Broadcasts several arrays against each other."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        type_check.expect_broadcast_shapes(*[t.shape for t in in_types])

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        return tuple(xp.broadcast_arrays(*inputs))

    def backward(self, indexes, grad_outputs):
        inputs = self.inputs
        return tuple(
            None
            if grad_outputs[i] is None
            else primitive_ops.sum_to(grad_outputs[i], inputs[i].shape)
            for i in indexes
        )


def broadcast(*args):
    """Broadcasts given variables.

    Args:
        args (~chainer.Variable or :ref:`ndarray`): Input arrays whose shapes
            can be broadcast together (NumPy rules).

    Returns:
        ~chainer.Variable or tuple of ~chainer.Variable: A tuple of Variables
        of the common broadcast shape, one per argument; a single Variable
        when there is exactly one argument.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> y0, y1 = F.broadcast(np.zeros((2, 1)), np.ones(3))
        >>> y0.shape, y1.shape
        ((2, 3), (2, 3))
    """
    if len(args) == 1:
        return variable.as_variable(args[0])
    return Broadcast().apply(args)


def broadcast_to(x, shape):
    """Broadcasts a given variable to a given shape.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array whose shape can be
            broadcast to ``shape`` (NumPy rules).
        shape (tuple of int): The target shape.

    Returns:
        ~chainer.Variable: Variable of shape ``shape``; ``x`` itself (as a
        Variable) when it already has that shape.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(3, dtype=np.float32)
        >>> F.broadcast_to(x, (2, 3)).array
        array([[0., 1., 2.],
               [0., 1., 2.]], dtype=float32)
    """
    return primitive_ops.broadcast_to(x, shape)
