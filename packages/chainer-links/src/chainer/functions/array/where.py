import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer import variable
from chainer.utils import type_check


class Where(function_node.FunctionNode):
    """Elementwise choice between two arrays by a boolean condition."""

    def __init__(self, condition):
        self.condition = condition

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "y"))
        x_type, y_type = in_types
        condition = self.condition
        if not type_check.is_light(in_types):
            info = type_check.TypeInfo(condition.shape, condition.dtype)
            condition = type_check.Variable(info, "condition")
        type_check.expect(
            condition.dtype == numpy.dtype(numpy.bool_),
            x_type.dtype == y_type.dtype,
        )
        type_check.expect_broadcast_shapes(condition.shape, x_type.shape, y_type.shape)

    def forward(self, inputs):
        x, y = inputs
        xp = backend.get_array_module(x)
        return (xp.where(self.condition, x, y),)

    def backward(self, indexes, grad_outputs):
        (g,) = grad_outputs
        xp = backend.get_array_module(g.array)
        zero = xp.zeros((), g.dtype)
        ret = []
        for i in indexes:
            pair = (g, zero) if i == 0 else (zero, g)
            (gx,) = Where(self.condition).apply(pair)
            ret.append(primitive_ops.sum_to(gx, self.inputs[i].shape))
        return tuple(ret)


def where(condition, x, y):
    """Chooses elements from ``x`` where ``condition`` holds, else from ``y``.

    The three arrays are broadcast together, as :func:`numpy.where`.

    Args:
        condition (~chainer.Variable or :ref:`ndarray`): Boolean array.
        x (~chainer.Variable or :ref:`ndarray`): Values taken where
            ``condition`` is ``True``.
        y (~chainer.Variable or :ref:`ndarray`): Values taken where
            ``condition`` is ``False``; same dtype as ``x``.

    Returns:
        ~chainer.Variable: Array of the broadcast shape of the three inputs.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> cond = np.array([[True, False], [False, True]])
        >>> x = np.zeros((2, 2), np.float32)
        >>> y = np.ones((2, 2), np.float32)
        >>> F.where(cond, x, y).array
        array([[0., 1.],
               [1., 0.]], dtype=float32)
    """
    condition = variable.as_array(condition)
    if not hasattr(condition, "dtype"):
        raise TypeError(f"condition must be a boolean array, not {condition!r}")
    (z,) = Where(condition).apply((x, y))
    return z
