from chainer import backend
from chainer import function_node
from chainer.functions.array import stack
from chainer.utils import type_check


class Separate(function_node.FunctionNode):
    """Split of an array into its slices along an axis."""

    def __init__(self, axis):
        self.axis = axis

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        return tuple(xp.moveaxis(x, self.axis, 0))

    def backward(self, indexes, grad_outputs):
        node = self.inputs[0]
        shape = list(node.shape)
        del shape[self.axis]
        zero = None
        gys = []
        for gy in grad_outputs:
            if gy is None:
                if zero is None:
                    given = next(g for g in grad_outputs if g is not None)
                    xp = backend.get_array_module(given.array)
                    zero = xp.zeros(shape, node.dtype)
                gy = zero
            gys.append(gy)
        return (stack.stack(gys, self.axis),)


def separate(x, axis=0):
    """Separates an array into its slices along an axis.

    The inverse of :func:`~chainer.functions.stack`: an array of shape
    ``(2, 3, 4)`` separated along ``axis=1`` gives three arrays of shape
    ``(2, 4)``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array to separate.
        axis (int): Axis along which to separate.

    Returns:
        tuple of ~chainer.Variable: ``x.shape[axis]`` arrays, each of shape
        ``x.shape`` without ``axis``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.arange(6).reshape(2, 3).astype(np.float32)
        >>> y = F.separate(x, axis=1)
        >>> len(y), y[0].shape
        (3, (2,))
        >>> y[1].array
        array([1., 4.], dtype=float32)
    """
    return Separate(axis).apply((x,))
