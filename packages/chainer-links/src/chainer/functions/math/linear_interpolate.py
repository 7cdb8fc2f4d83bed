"""Elementwise linear interpolation ``p * x + (1 - p) * y``."""

from chainer import function_node
from chainer.utils import type_check


class LinearInterpolate(function_node.FunctionNode):
    @property
    def label(self):
        return "linear_interpolate"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("p", "x", "y"))
        p_type, x_type, y_type = in_types
        type_check.expect(
            p_type.dtype.kind == "f",
            x_type.dtype == p_type.dtype,
            y_type.dtype == p_type.dtype,
            x_type.shape == p_type.shape,
            y_type.shape == p_type.shape,
        )

    def forward(self, inputs):
        p, x, y = inputs
        self.retain_inputs((0, 1, 2))
        # A one of p's dtype keeps 0-d float16/32 inputs from promoting.
        return (p * x + (p.dtype.type(1) - p) * y,)

    def backward(self, indexes, grad_outputs):
        (g,) = grad_outputs
        p, x, y = self.get_retained_inputs()
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(g * (x - y))
            elif i == 1:
                ret.append(g * p)
            else:
                ret.append(g - g * p)
        return tuple(ret)


def linear_interpolate(p, x, y):
    """Elementwise linear interpolation function.

    .. math:: z_i = p_i x_i + (1 - p_i) y_i

    Args:
        p (~chainer.Variable or :ref:`ndarray`): Float array of the weights of
            ``x``, typically in :math:`[0, 1]`.
        x (~chainer.Variable or :ref:`ndarray`): Array of the shape and dtype
            of ``p``.
        y (~chainer.Variable or :ref:`ndarray`): Array of the shape and dtype
            of ``p``.

    Returns:
        ~chainer.Variable: The interpolation, of the shape and dtype of ``p``.
    """
    return LinearInterpolate().apply((p, x, y))[0]
