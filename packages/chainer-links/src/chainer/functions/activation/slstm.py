from chainer import backend
from chainer import function_node
from chainer.functions.activation import sigmoid
from chainer.functions.activation import tanh
from chainer.functions.array import stack
from chainer.utils import type_check


def _sigmoid(xp, z):
    # tanh form: never overflows, unlike 1 / (1 + exp(-z)).
    half = z.dtype.type(0.5)
    y = xp.tanh(z * half)
    y *= half
    y += half
    return y


class SLSTM(function_node.FunctionNode):
    """S-LSTM unit of a binary tree node; forward fused, backward differentiable."""

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("c_prev1", "c_prev2", "x1", "x2"))
        c1_type, c2_type, x1_type, x2_type = in_types
        type_check.expect(
            c1_type.dtype.kind == "f",
            c2_type.dtype == c1_type.dtype,
            x1_type.dtype == c1_type.dtype,
            x2_type.dtype == c1_type.dtype,
            c1_type.ndim >= 2,
            c2_type.ndim == c1_type.ndim,
            x1_type.ndim == c1_type.ndim,
            x2_type.ndim == c1_type.ndim,
            c1_type.shape[0] == x1_type.shape[0],
            c2_type.shape[0] == x1_type.shape[0],
            x2_type.shape[0] == x1_type.shape[0],
            c2_type.shape[1] == c1_type.shape[1],
            x1_type.shape[1] == 4 * c1_type.shape[1],
            x2_type.shape[1] == 4 * c2_type.shape[1],
        )
        for i in range(2, type_check.eval(c1_type.ndim)):
            type_check.expect(
                c2_type.shape[i] == c1_type.shape[i],
                x1_type.shape[i] == c1_type.shape[i],
                x2_type.shape[i] == c1_type.shape[i],
            )

    def forward(self, inputs):
        c1, c2, x1, x2 = inputs
        xp = backend.get_array_module(x1)
        shape = (x1.shape[0], c1.shape[1], 4, *x1.shape[2:])
        r1 = x1.reshape(shape)
        r2 = x2.reshape(shape)
        s = r1 + r2
        a = xp.tanh(s[:, :, 0])
        i = _sigmoid(xp, s[:, :, 1])
        o = _sigmoid(xp, s[:, :, 3])
        c = a * i
        c += _sigmoid(xp, r1[:, :, 2]) * c1
        c += _sigmoid(xp, r2[:, :, 2]) * c2
        h = o * xp.tanh(c)
        self.retain_inputs((0, 1, 2, 3))
        self.retain_outputs((0,))
        return c, h

    def backward(self, indexes, grad_outputs):
        c1, c2, x1, x2 = self.get_retained_inputs()
        (c,) = self.get_retained_outputs()
        gc, gh = grad_outputs
        shape = (x1.shape[0], c1.shape[1], 4, *x1.shape[2:])
        r1 = x1.reshape(shape)
        r2 = x2.reshape(shape)
        a = tanh.tanh(r1[:, :, 0] + r2[:, :, 0])
        i = sigmoid.sigmoid(r1[:, :, 1] + r2[:, :, 1])
        f1 = sigmoid.sigmoid(r1[:, :, 2])
        f2 = sigmoid.sigmoid(r2[:, :, 2])
        o = sigmoid.sigmoid(r1[:, :, 3] + r2[:, :, 3])
        t = tanh.tanh(c)
        if gh is None:
            g = gc
            go = c.xp.zeros(c.shape, c.dtype)
        else:
            g = gh * o * (1 - t * t)
            if gc is not None:
                g = g + gc
            go = gh * t * o * (1 - o)
        ga = g * i * (1 - a * a)
        gi = g * a * i * (1 - i)
        gf1 = g * c1 * f1 * (1 - f1)
        gf2 = g * c2 * f2 * (1 - f2)
        gx1 = stack.stack((ga, gi, gf1, go), axis=2).reshape(x1.shape)
        gx2 = stack.stack((ga, gi, gf2, go), axis=2).reshape(x2.shape)
        return g * f1, g * f2, gx1, gx2


def slstm(c_prev1, c_prev2, x1, x2):
    """S-LSTM units as an activation function.

    This function implements the S-LSTM unit, an extension of the LSTM unit
    to binary trees: each node has two children. It takes the children's
    cell states :math:`c_1, c_2` and incoming signals :math:`x_1, x_2`.

    Both :math:`x_1` and :math:`x_2` are split into four arrays along the
    second axis, :math:`a_k, i_k, f_k, o_k`, interleaved per unit as in
    :func:`~chainer.functions.lstm`, so their second axis is four times that
    of the cell states. Then

    .. math::

        c &= \\tanh(a_1 + a_2) \\sigma(i_1 + i_2)
             + c_1 \\sigma(f_1) + c_2 \\sigma(f_2), \\\\
        h &= \\tanh(c) \\sigma(o_1 + o_2),

    where :math:`\\sigma` is the sigmoid function.

    Args:
        c_prev1 (~chainer.Variable or :ref:`ndarray`): Cell state of the
            first child, shape :math:`(B, H, ...)`, float.
        c_prev2 (~chainer.Variable or :ref:`ndarray`): Cell state of the
            second child, shape and dtype of ``c_prev1``.
        x1 (~chainer.Variable or :ref:`ndarray`): Incoming signal from the
            first child, shape :math:`(B, 4H, ...)`.
        x2 (~chainer.Variable or :ref:`ndarray`): Incoming signal from the
            second child, shape :math:`(B, 4H, ...)`.

    Returns:
        tuple: Two :class:`~chainer.Variable` objects ``c`` (the cell state)
        and ``h`` (the outgoing signal), both of shape :math:`(B, H, ...)`.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> c1 = np.zeros((2, 3), np.float32)
        >>> c2 = np.ones((2, 3), np.float32)
        >>> x1 = np.zeros((2, 12), np.float32)
        >>> x2 = np.zeros((2, 12), np.float32)
        >>> c, h = F.slstm(c1, c2, x1, x2)
        >>> c.array[0]
        array([0.5, 0.5, 0.5], dtype=float32)

    See `Long Short-Term Memory Over Tree Structures
    <https://arxiv.org/abs/1503.04881>`_.
    """
    return SLSTM().apply((c_prev1, c_prev2, x1, x2))
