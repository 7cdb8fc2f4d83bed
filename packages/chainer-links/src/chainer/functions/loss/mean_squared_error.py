import numpy

from chainer import backend
from chainer import function_node
from chainer.primitive_ops import basic_math
from chainer.utils import type_check


def _same_float_pair(node, xs):
    # Two float arrays of one dtype and one shape.
    return basic_math._same_type_pair(node, xs) and xs[0].dtype.kind == "f"


class MeanSquaredError(function_node.FunctionNode):
    """Mean of the squared differences of two arrays of the same shape."""

    @type_check.fast_path(_same_float_pair)
    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("x0", "x1"))
        x0_type, x1_type = in_types
        type_check.expect(x0_type.dtype.kind == "f")
        type_check.expect(x0_type.dtype == x1_type.dtype)
        type_check.expect(x0_type.shape == x1_type.shape)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        xp = backend.get_array_module(x0)
        diff = (x0 - x1).ravel()
        if diff.dtype == numpy.float16:
            # A float16 sum of squares overflows long before the mean does.
            diff = diff.astype(numpy.float32)
        y = diff.dot(diff) / max(diff.size, 1)
        return (xp.asarray(y, dtype=x0.dtype),)

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        (gy,) = grad_outputs
        gx0 = gy * (2.0 / x0.size) * (x0 - x1)
        ret = []
        if 0 in indexes:
            ret.append(gx0)
        if 1 in indexes:
            ret.append(-gx0)
        return ret


def mean_squared_error(x0, x1):
    """Mean squared error between two arrays.

    .. math:: y = \\frac{1}{N} \\sum_i (x_{0,i} - x_{1,i})^2

    where :math:`N` is the number of elements.

    Args:
        x0 (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        x1 (~chainer.Variable or :ref:`ndarray`): Float array of the same
            shape and dtype as ``x0``.

    Returns:
        ~chainer.Variable: A scalar (shape ``()``) of the inputs' dtype.
    """
    (y,) = MeanSquaredError().apply((x0, x1))
    return y
