from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.activation import sigmoid
from chainer.utils import type_check


def _param_shape(x_ndim, beta_shape):
    # beta's axes sit right after the batch axis; other axes broadcast.
    return (1, *beta_shape) + (1,) * (x_ndim - 1 - len(beta_shape))


class Swish(function_node.FunctionNode):
    """Swish activation ``x * sigmoid(beta * x)``."""

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "beta"))
        x_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            beta_type.dtype == x_type.dtype,
            beta_type.ndim <= x_type.ndim - 1,
            x_type.shape[1 : 1 + type_check.eval(beta_type.ndim)] == beta_type.shape,
        )

    def forward(self, inputs):
        x, beta = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0, 1))
        half = x.dtype.type(0.5)
        bx = x * beta.reshape(_param_shape(x.ndim, beta.shape))
        # sigmoid(t) = (tanh(t / 2) + 1) / 2 never overflows.
        s = xp.tanh(bx * half)
        s *= half
        s += half
        return (x * s,)

    def backward(self, indexes, grad_outputs):
        x, beta = self.get_retained_inputs()
        (gy,) = grad_outputs
        shape = _param_shape(x.ndim, beta.shape)
        bb = primitive_ops.reshape(beta, shape)
        s = sigmoid.sigmoid(x * bb)
        y = x * s
        t = y * (1 - s)
        ret = []
        if 0 in indexes:
            ret.append(gy * (s + bb * t))
        if 1 in indexes:
            gbeta = primitive_ops.sum_to(gy * (x * t), shape)
            ret.append(primitive_ops.reshape(gbeta, beta.shape))
        return tuple(ret)


def swish(x, beta):
    """Swish activation function.

    .. math:: f(x, \\beta) = x \\cdot \\sigma(\\beta x),

    where :math:`\\sigma(\\cdot)` is the sigmoid function. It has the
    following properties:

    .. math::
        f(x, 0) = \\frac{x}{2}, \\qquad
        \\lim_{\\beta \\to \\infty} f(x, \\beta) = \\max(0, x).

    See: https://arxiv.org/abs/1710.05941

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_B, s_1, s_2, ..., s_N)`-shaped float array, where
            :math:`s_B` is the batch size.
        beta (~chainer.Variable or :ref:`ndarray`): Parameter variable
            :math:`\\beta` of the dtype of ``x`` and a shape
            :math:`(s_1, s_2, ..., s_M)` that ``x.shape`` has right after its
            batch axis (:math:`M \\le N`); it is broadcast over the other
            axes.

    Returns:
        ~chainer.Variable: Output variable of the shape of ``x``.

    .. seealso:: :class:`~chainer.links.Swish`

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[-1, 0, 2]], np.float32)
        >>> beta = np.ones(3, np.float32)
        >>> F.swish(x, beta).array.round(4)
        array([[-0.2689,  0.    ,  1.7616]], dtype=float32)
    """
    (y,) = Swish().apply((x, beta))
    return y
