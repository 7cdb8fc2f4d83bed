from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class Diagonal(function_node.FunctionNode):
    """Diagonal of two axes, moved to the last axis."""

    def __init__(self, offset, axis1, axis2):
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        axis1 = type_check.make_variable(self.axis1, "axis1")
        axis2 = type_check.make_variable(self.axis2, "axis2")
        type_check.expect(
            -x_type.ndim <= axis1,
            axis1 < x_type.ndim,
            -x_type.ndim <= axis2,
            axis2 < x_type.ndim,
        )
        ndim = type_check.eval(x_type.ndim)
        if self.axis1 % ndim == self.axis2 % ndim:
            raise type_check.InvalidType(
                "axis1 and axis2 to name different axes",
                f"axis1={self.axis1}, axis2={self.axis2}, x.ndim={ndim}",
            )

    def forward(self, inputs):
        (x,) = inputs
        self._in_shape = x.shape
        return (x.diagonal(self.offset, self.axis1, self.axis2),)

    def backward(self, indexes, grad_outputs):
        grad = DiagonalGrad(self._in_shape, self.offset, self.axis1, self.axis2)
        return grad.apply(grad_outputs)


class DiagonalGrad(function_node.FunctionNode):
    """Writes a diagonal into zeros of the original shape."""

    def __init__(self, out_shape, offset, axis1, axis2):
        self._out_shape = out_shape
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def forward(self, inputs):
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._out_shape, gy.dtype)
        # A writable view with the two axes last, in the diagonal's order.
        view = xp.moveaxis(gx, (self.axis1, self.axis2), (-2, -1))
        i = xp.arange(gy.shape[-1])
        if self.offset >= 0:
            view[..., i, i + self.offset] = gy
        else:
            view[..., i - self.offset, i] = gy
        return (gx,)

    def backward(self, indexes, grad_outputs):
        (ggx,) = grad_outputs
        return (diagonal(ggx, self.offset, self.axis1, self.axis2),)


def diagonal(x, offset=0, axis1=0, axis2=1):
    """Takes the diagonal of two axes.

    Like :func:`numpy.diagonal`: the two axes are removed and the diagonal
    becomes the last axis of the result.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array with at least two
            dimensions.
        offset (int): Offset of the diagonal from the main one; positive
            values take diagonals above it (``x[i, i + offset]``).
        axis1 (int): First axis of the 2-d sub-arrays.
        axis2 (int): Second axis of the 2-d sub-arrays.

    Returns:
        ~chainer.Variable: The diagonals, of ndim ``x.ndim - 1``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(9, dtype=np.float32).reshape(3, 3)
        >>> F.diagonal(x, offset=1).array
        array([1., 5.], dtype=float32)
    """
    (y,) = Diagonal(int(offset), int(axis1), int(axis2)).apply((x,))
    return y
