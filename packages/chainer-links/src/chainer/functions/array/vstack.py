import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.array import split_axis
from chainer.utils import type_check


class Vstack(function_node.FunctionNode):
    """Concatenation along the first axis (rows)."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        x0_type = in_types[0]
        ndim = type_check.eval(x0_type.ndim)
        for x_type in in_types[1:]:
            type_check.expect(
                x0_type.dtype == x_type.dtype,
                x0_type.ndim == x_type.ndim,
            )
            if ndim <= 1:
                type_check.expect(x0_type.shape == x_type.shape)
                continue
            for d in range(1, ndim):
                type_check.expect(x0_type.shape[d] == x_type.shape[d])

    def forward(self, inputs):
        xp = backend.get_array_module(inputs[0])
        return (xp.vstack(inputs),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        shape = self.inputs[0].shape
        if len(shape) <= 1:
            # Each input of 0 or 1 dimensions became one row.
            gxs = split_axis.split_axis(gy, len(self.inputs), 0)
            return tuple(primitive_ops.reshape(gxs[i], shape) for i in indexes)
        if len(self.inputs) == 1:
            return (gy,)
        sizes = numpy.cumsum([x.shape[0] for x in self.inputs[:-1]]).tolist()
        gxs = split_axis.split_axis(gy, sizes, 0)
        return tuple(gxs[i] for i in indexes)


def vstack(xs):
    """Stacks arrays vertically (along the first axis), as :func:`numpy.vstack`.

    Arrays of 0 or 1 dimensions are first turned into rows of shape
    ``(1, N)``; those inputs must all have the same shape. Arrays of two or
    more dimensions must agree in every dimension except the first.

    Args:
        xs (list of ~chainer.Variable or :ref:`ndarray`): Arrays of one dtype
            and one number of dimensions.

    Returns:
        ~chainer.Variable: The stacked array, of at least two dimensions.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x1 = np.array([1, 2, 3], np.float32)
        >>> x2 = np.array([4, 5, 6], np.float32)
        >>> F.vstack((x1, x2)).array
        array([[1., 2., 3.],
               [4., 5., 6.]], dtype=float32)
    """
    (y,) = Vstack().apply(tuple(xs))
    return y
