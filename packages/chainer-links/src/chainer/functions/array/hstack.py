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


class Hstack(function_node.FunctionNode):
    """Concatenation along the second axis (column wise; the first for 1-d)."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        n = type_check.eval(in_types.size())
        type_check.argname(in_types, tuple(f"x{i}" for i in range(n)))
        x0 = in_types[0]
        ndim = type_check.eval(x0.ndim)
        for i in range(1, n):
            x = in_types[i]
            type_check.expect(x0.dtype == x.dtype, x0.ndim == x.ndim)
            if ndim <= 1:
                continue
            for d in range(ndim):
                if d != 1:
                    type_check.expect(x0.shape[d] == x.shape[d])

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        return (xp.hstack(inputs),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        inputs = self.inputs
        ndim = len(inputs[0].shape)
        if ndim == 0:
            # Each 0-d input became one element of gy.
            return tuple(primitive_ops.get_item(gy, i) for i in indexes)
        if len(inputs) == 1:
            return (gy,)
        axis = 0 if ndim == 1 else 1
        sizes = [x.shape[axis] for x in inputs]
        return _split_along(gy, axis, sizes, indexes)


def hstack(xs):
    """Concatenates variables horizontally (column wise).

    Like :func:`numpy.hstack`: arrays are joined along the second axis, or
    along the first when they are 1-d; 0-d arrays are joined into a 1-d one.

    Args:
        xs (list of ~chainer.Variable or :ref:`ndarray`): Arrays of one dtype
            and ndim whose shapes agree except along the joining axis.

    Returns:
        ~chainer.Variable: The joined variable.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x1 = np.array(((1,), (2,), (3,)))
        >>> x2 = np.array(((2,), (3,), (4,)))
        >>> F.hstack((x1, x2)).shape
        (3, 2)
    """
    (y,) = Hstack().apply(xs)
    return y
