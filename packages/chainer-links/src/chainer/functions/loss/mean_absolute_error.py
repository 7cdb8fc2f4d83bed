import numpy

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class MeanAbsoluteError(function_node.FunctionNode):
    """Mean of the absolute differences of two arrays of the same shape."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("x0", "x1"))
        x0_type, x1_type = in_types
        type_check.expect(x0_type.dtype.kind == "f")
        type_check.expect(x0_type.dtype == x1_type.dtype)
        type_check.expect(x0_type.shape == x1_type.shape)

    def forward(self, inputs):
        x0, x1 = inputs
        xp = backend.get_array_module(x0)
        diff = x0 - x1
        self._sign = xp.sign(diff)
        # float16 sums are accumulated in float32 to avoid overflow.
        acc = numpy.float32 if x0.dtype == numpy.float16 else x0.dtype
        y = abs(diff).sum(dtype=acc) / max(diff.size, 1)
        return (xp.asarray(y, dtype=x0.dtype),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        # NOTE: the gradient at x0 == x1 is taken as 0 (sign(0) == 0).
        gx0 = gy * (self._sign * (1.0 / max(self._sign.size, 1))).astype(gy.dtype)
        ret = []
        if 0 in indexes:
            ret.append(gx0)
        if 1 in indexes:
            ret.append(-gx0)
        return ret


def mean_absolute_error(x0, x1):
    """Mean absolute error between two arrays.

    .. math:: y = \\frac{1}{N} \\sum_i |x_{0,i} - x_{1,i}|

    where :math:`N` is the number of elements.

    Args:
        x0 (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        x1 (~chainer.Variable or :ref:`ndarray`): Float array of the same
            shape and dtype as ``x0``.

    Returns:
        ~chainer.Variable: A scalar (shape ``()``) of the inputs' dtype.
    """
    (y,) = MeanAbsoluteError().apply((x0, x1))
    return y
