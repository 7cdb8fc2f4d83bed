from chainer import function_node
from chainer.utils import type_check


class FlipLR(function_node.FunctionNode):
    """Reversal of the second axis."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("a",))
        (a_type,) = in_types
        type_check.expect(a_type.ndim >= 2)

    def forward(self, inputs):
        (a,) = inputs
        return (a[:, ::-1],)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (fliplr(gy),)


def fliplr(a):
    """Flips an array in the left/right direction (reverses its second axis).

    Args:
        a (~chainer.Variable or :ref:`ndarray`): Array with at least two
            dimensions.

    Returns:
        ~chainer.Variable: Variable of the shape of ``a``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> a = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> F.fliplr(a).array
        array([[2., 1.],
               [4., 3.]], dtype=float32)
    """
    (y,) = FlipLR().apply((a,))
    return y
