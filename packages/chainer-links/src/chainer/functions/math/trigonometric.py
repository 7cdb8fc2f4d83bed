"""Trigonometric functions and their inverses (sin, cos, tan, arcsin ...)."""

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _check_float_unary(in_types):
    type_check.argname(in_types, ("x",))
    type_check.expect(in_types[0].dtype.kind == "f")


class Sin(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "sin"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).sin(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * cos(x),)


class Cos(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "cos"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).cos(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (-grad_outputs[0] * sin(x),)


class Tan(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "tan"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        return (backend.get_array_module(x).tan(x),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        # d tan(x) / dx = 1 + tan(x)^2, written with the output.
        return (grad_outputs[0] * (y * y + 1.0),)


class Arcsin(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "arcsin"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).arcsin(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * (1.0 - x * x) ** -0.5,)


class Arccos(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "arccos"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).arccos(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (-grad_outputs[0] * (1.0 - x * x) ** -0.5,)


class Arctan(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float_unary)

    @property
    def label(self):
        return "arctan"

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).arctan(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (x * x + 1.0),)


class Arctan2(function_node.FunctionNode):
    @property
    def label(self):
        return "arctan2"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x1", "x2"))
        x1_type, x2_type = in_types
        type_check.expect(x1_type.dtype.kind == "f", x2_type.dtype == x1_type.dtype)
        type_check.expect_broadcast_shapes(x1_type.shape, x2_type.shape)

    def forward(self, inputs):
        x1, x2 = inputs
        self.retain_inputs((0, 1))
        return (backend.get_array_module(x1).arctan2(x1, x2),)

    def backward(self, indexes, grad_outputs):
        x1, x2 = self.get_retained_inputs()
        g = grad_outputs[0] / (x1 * x1 + x2 * x2)
        ret = []
        for i in indexes:
            gx = g * x2 if i == 0 else -g * x1
            shape = (x1 if i == 0 else x2).shape
            ret.append(gx if gx.shape == shape else primitive_ops.sum_to(gx, shape))
        return tuple(ret)


def sin(x):
    """Elementwise sine function.

    .. math:: y_i = \\sin x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Sin().apply((x,))[0]


def cos(x):
    """Elementwise cosine function.

    .. math:: y_i = \\cos x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Cos().apply((x,))[0]


def tan(x):
    """Elementwise tangent function.

    .. math:: y_i = \\tan x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Tan().apply((x,))[0]


def arcsin(x):
    """Elementwise arcsine function.

    .. math:: y_i = \\arcsin x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with values in :math:`[-1, 1]`.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Arcsin().apply((x,))[0]


def arccos(x):
    """Elementwise arccosine function.

    .. math:: y_i = \\arccos x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with values in :math:`[-1, 1]`.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Arccos().apply((x,))[0]


def arctan(x):
    """Elementwise arctangent function.

    .. math:: y_i = \\arctan x_i

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Arctan().apply((x,))[0]


def arctan2(x1, x2):
    """Elementwise arctangent of ``x1 / x2`` choosing the quadrant correctly.

    .. math:: y_i = \\arctan \\left(\\frac{x_{1,i}}{x_{2,i}}\\right)

    The result lies in :math:`[-\\pi, \\pi]`, as with :func:`numpy.arctan2`.

    Args:
        x1 (~chainer.Variable or :ref:`ndarray`): Float array, the
            y-coordinates.
        x2 (~chainer.Variable or :ref:`ndarray`): Array of the same dtype,
            the x-coordinates; its shape must broadcast with ``x1``'s.

    Returns:
        ~chainer.Variable: The angles, of the broadcast shape and the dtype of
        the inputs.
    """
    return Arctan2().apply((x1, x2))[0]
