"""Elementwise floating-point remainder (``numpy.fmod``)."""

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class Fmod(function_node.FunctionNode):
    @property
    def label(self):
        return "fmod"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "divisor"))
        x_type, divisor_type = in_types
        type_check.expect(x_type.dtype.kind == "f", divisor_type.dtype == x_type.dtype)
        type_check.expect_broadcast_shapes(x_type.shape, divisor_type.shape)

    def forward(self, inputs):
        x, divisor = inputs
        self.retain_inputs((0, 1))
        return (backend.get_array_module(x).fmod(x, divisor),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        x, divisor = self.get_retained_inputs()
        ret = []
        for i in indexes:
            if i == 0:
                gx = gy
            else:
                # fmod(x, d) = x - d * trunc(x / d); the quotient is piecewise
                # constant, so it enters as a constant.
                xp = backend.get_array_module(x)
                gx = gy * -xp.trunc(x.array / divisor.array)
            shape = (x if i == 0 else divisor).shape
            ret.append(gx if gx.shape == shape else primitive_ops.sum_to(gx, shape))
        return tuple(ret)


def fmod(x, divisor):
    """Elementwise remainder of division, with the sign of the dividend.

    .. math:: y_i = x_i - d_i \\cdot \\mathrm{fix}(x_i / d_i)

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array, the dividend.
        divisor (~chainer.Variable or :ref:`ndarray`): Array of the same
            dtype whose shape broadcasts with ``x``'s, the divisor.

    Returns:
        ~chainer.Variable: The remainder, of the broadcast shape and the dtype
        of the inputs.
    """
    return Fmod().apply((x, divisor))[0]
