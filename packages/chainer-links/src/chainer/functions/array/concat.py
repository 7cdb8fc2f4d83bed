from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _split_along(gy, axis, sizes, indexes):
    # Gradients of the pieces that were joined along ``axis``.
    starts = [0]
    for n in sizes:
        starts.append(starts[-1] + n)
    lead = (slice(None),) * axis
    return tuple(
        primitive_ops.get_item(gy, (*lead, slice(starts[i], starts[i + 1])))
        for i in indexes
    )


class Concat(function_node.FunctionNode):
    """Concatenation of arrays along an existing axis."""

    def __init__(self, axis=1):
        if not isinstance(axis, int):
            raise TypeError(f"concat: axis must be int, got {type(axis).__name__}")
        self.axis = axis

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        n = type_check.eval(in_types.size())
        type_check.argname(in_types, tuple(f"x{i}" for i in range(n)))
        x0 = in_types[0]
        axis = type_check.make_variable(self.axis, "axis")
        type_check.expect(x0.ndim > axis, -x0.ndim <= axis)
        ndim = type_check.eval(x0.ndim)
        axis = self.axis % ndim
        for i in range(1, n):
            x = in_types[i]
            type_check.expect(x0.dtype == x.dtype, x0.ndim == x.ndim)
            for d in range(ndim):
                if d != axis:
                    type_check.expect(x0.shape[d] == x.shape[d])

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        return (xp.concatenate(inputs, axis=self.axis),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        if len(self.inputs) == 1:
            return (gy,)
        axis = self.axis % gy.ndim
        sizes = [x.shape[axis] for x in self.inputs]
        return _split_along(gy, axis, sizes, indexes)


def concat(xs, axis=1):
    """Concatenates given variables along an axis.

    Args:
        xs (tuple or list of ~chainer.Variable or :ref:`ndarray`): Arrays of
            one dtype and ndim whose shapes agree except along ``axis``.
        axis (int): The axis to join along (negative counts from the end).

    Returns:
        ~chainer.Variable: The joined variable; its size along ``axis`` is the
        sum of the inputs' sizes there.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(0, 12).reshape(3, 4)
        >>> y = np.arange(0, 3).reshape(3, 1)
        >>> F.concat((x, y), axis=1).shape
        (3, 5)
    """
    (y,) = Concat(axis).apply(xs)
    return y
