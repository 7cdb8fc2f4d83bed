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


class Dstack(function_node.FunctionNode):
    """Concatenation along the third axis (depth wise)."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        n = type_check.eval(in_types.size())
        type_check.argname(in_types, tuple(f"x{i}" for i in range(n)))
        x0 = in_types[0]
        ndim = type_check.eval(x0.ndim)
        for i in range(1, n):
            x = in_types[i]
            type_check.expect(x0.dtype == x.dtype, x0.ndim == x.ndim)
            if ndim <= 2:
                type_check.expect(x0.shape == x.shape)
                continue
            for d in range(ndim):
                if d != 2:
                    type_check.expect(x0.shape[d] == x.shape[d])

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        return (xp.dstack(inputs),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        inputs = self.inputs
        shape = inputs[0].shape
        if len(shape) > 2:
            if len(inputs) == 1:
                return (gy,)
            sizes = [x.shape[2] for x in inputs]
            return _split_along(gy, 2, sizes, indexes)
        # Each input of ndim <= 2 became one slice gy[:, :, i].
        return tuple(
            primitive_ops.reshape(
                primitive_ops.get_item(gy, (slice(None), slice(None), i)), shape
            )
            for i in indexes
        )


def dstack(xs):
    """Concatenates variables along the third axis (depth wise).

    Like :func:`numpy.dstack`: inputs of shape ``(m, n)`` are treated as
    ``(m, n, 1)``, of shape ``(n,)`` as ``(1, n, 1)`` and 0-d ones as
    ``(1, 1, 1)``.

    Args:
        xs (list of ~chainer.Variable or :ref:`ndarray`): Arrays of one dtype
            and ndim. With ndim <= 2 their shapes must be equal; otherwise
            they must agree except along the third axis.

    Returns:
        ~chainer.Variable: The joined variable, with at least three
        dimensions.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x1 = np.array((1, 2, 3))
        >>> x2 = np.array((2, 3, 4))
        >>> F.dstack((x1, x2)).shape
        (1, 3, 2)
    """
    (y,) = Dstack().apply(xs)
    return y
