from chainer import function_node
from chainer.utils import type_check

_REVERSED = slice(None, None, -1)


def _flip(array, axis):
    """Returns a view of ``array`` reversed along ``axis`` (``xp.flip``).

    Args:
        array (:ref:`ndarray`): Array with at least one dimension.
        axis (int): The axis to reverse; negative counts from the end.
    """
    # Basic slicing is the same view as xp.flip, with less overhead.
    return array[(slice(None),) * (axis % array.ndim) + (_REVERSED,)]


class Flip(function_node.FunctionNode):
    """Reversal of one axis."""

    def __init__(self, axis):
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"flip: axis must be int, got {axis!r}")
        self.axis = axis

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.ndim > 0)
        axis = type_check.make_variable(self.axis, "axis")
        if self.axis >= 0:
            type_check.expect(x_type.ndim > axis)
        else:
            type_check.expect(x_type.ndim >= -axis)

    def forward(self, inputs):
        (x,) = inputs
        return (_flip(x, self.axis),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (flip(gy, self.axis),)


def flip(x, axis):
    """Flips an input variable in reverse order along the given axis.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array with at least one
            dimension.
        axis (int): The axis to reverse.

    Returns:
        ~chainer.Variable: Variable of the shape of ``x``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> F.flip(x, 1).array
        array([[2., 1.],
               [4., 3.]], dtype=float32)
    """
    (y,) = Flip(axis).apply((x,))
    return y
