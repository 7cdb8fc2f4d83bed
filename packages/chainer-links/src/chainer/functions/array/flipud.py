from chainer import function_node
from chainer.utils import type_check


class FlipUD(function_node.FunctionNode):
    """Reversal of the first axis."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("a",))
        (a_type,) = in_types
        type_check.expect(a_type.ndim >= 1)

    def forward(self, inputs):
        (a,) = inputs
        return (a[::-1],)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (flipud(gy),)


def flipud(a):
    """Flips an array in the up/down direction (reverses its first axis).

    Args:
        a (~chainer.Variable or :ref:`ndarray`): Array with at least one
            dimension.

    Returns:
        ~chainer.Variable: Variable of the shape of ``a``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> a = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> F.flipud(a).array
        array([[3., 4.],
               [1., 2.]], dtype=float32)
    """
    (y,) = FlipUD().apply((a,))
    return y
