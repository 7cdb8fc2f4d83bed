from chainer import backend
from chainer import function_node
from chainer.functions import _labels
from chainer.utils import type_check


class SelectItem(function_node.FunctionNode):
    """Selection of one element per row of a matrix."""

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(
            t_type.dtype.kind == "i",
            x_type.ndim == 2,
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
        )

    def forward(self, inputs):
        x, t = inputs
        _labels.check_labels("select_item", t, x.shape[1], None, "t", "x.shape[1]")
        self.retain_inputs((1,))
        xp = backend.get_array_module(x)
        return (x[xp.arange(len(t)), t],)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        (t,) = self.get_retained_inputs()
        gx = SelectItemGrad(self.inputs[0].shape).apply((gy, t))[0]
        return gx, None


class SelectItemGrad(function_node.FunctionNode):
    """Placement of one value per row into a zero matrix."""

    def __init__(self, shape):
        self.shape = shape

    def forward(self, inputs):
        gy, t = inputs
        self.retain_inputs((1,))
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.shape, gy.dtype)
        gx[xp.arange(len(t)), t] = gy
        return (gx,)

    def backward(self, indexes, grad_outputs):
        (ggx,) = grad_outputs
        (t,) = self.get_retained_inputs()
        return select_item(ggx, t), None


def select_item(x, t):
    """Selects the element ``x[i, t[i]]`` of each row ``i``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Matrix of shape ``(B, N)``.
        t (~chainer.Variable or :ref:`ndarray`): Signed integer array of shape
            ``(B,)`` holding a column index in ``[0, N)`` per row (any other
            raises ``ValueError``).

    Returns:
        ~chainer.Variable: Array of shape ``(B,)`` with ``y[i] = x[i, t[i]]``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[0, 1, 2], [3, 4, 5]], np.float32)
        >>> t = np.array([0, 2], np.int32)
        >>> F.select_item(x, t).array
        array([0., 5.], dtype=float32)
    """
    (y,) = SelectItem().apply((x, t))
    return y
