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
    """S-LSTM unit of a binary tree node; forward fused (see :class:`SLSTMGrad`)."""

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
        # NOTE: each child's cell input and input/forget gates are activated
        # on their own; only the output gate sums both children first.
        c = xp.tanh(r1[:, :, 0]) * _sigmoid(xp, r1[:, :, 1])
        c += xp.tanh(r2[:, :, 0]) * _sigmoid(xp, r2[:, :, 1])
        c += _sigmoid(xp, r1[:, :, 2]) * c1
        c += _sigmoid(xp, r2[:, :, 2]) * c2
        h = _sigmoid(xp, r1[:, :, 3] + r2[:, :, 3]) * xp.tanh(c)
        self.retain_inputs((0, 1, 2, 3))
        self.retain_outputs((0,))
        return c, h

    def backward(self, indexes, grad_outputs):
        c1, c2, x1, x2 = self.get_retained_inputs()
        (c,) = self.get_retained_outputs()
        gc, gh = grad_outputs
        xp = backend.get_array_module(x1.array)
        if gc is None:
            gc = xp.zeros_like(c.array)
        if gh is None:
            gh = xp.zeros_like(c.array)
        return SLSTMGrad().apply((c1, c2, x1, x2, c, gc, gh))


def _gates(xp, x, n_units):
    """Activated gates ``tanh(a), sigmoid(i), sigmoid(f)`` and raw ``o``."""
    r = x.reshape((x.shape[0], n_units, 4, *x.shape[2:]))
    return xp.tanh(r[:, :, 0]), _sigmoid(xp, r[:, :, 1]), _sigmoid(xp, r[:, :, 2]), r


class SLSTMGrad(function_node.FunctionNode):
    """Gradient of :class:`SLSTM`; its own backward gives double backprop.

    Inputs are ``(c_prev1, c_prev2, x1, x2, c, gc, gh)``, where ``c`` is the
    cell state :class:`SLSTM` returned and ``gc``, ``gh`` the gradients of
    its outputs; outputs are ``(gc_prev1, gc_prev2, gx1, gx2)``.
    """

    def forward(self, inputs):
        c1, c2, x1, x2, c, gc, gh = inputs
        xp = backend.get_array_module(x1)
        n_units = c1.shape[1]
        a1, i1, f1, r1 = _gates(xp, x1, n_units)
        a2, i2, f2, r2 = _gates(xp, x2, n_units)
        o = _sigmoid(xp, r1[:, :, 3] + r2[:, :, 3])
        t = xp.tanh(c)
        one = x1.dtype.type(1)
        g = gc + gh * o * (one - t * t)
        go = gh * t * o * (one - o)
        gxs = []
        for a, i, f, cp in ((a1, i1, f1, c1), (a2, i2, f2, c2)):
            gx = xp.empty((x1.shape[0], n_units, 4, *x1.shape[2:]), x1.dtype)
            gx[:, :, 0] = g * i * (one - a * a)
            gx[:, :, 1] = g * a * i * (one - i)
            gx[:, :, 2] = g * cp * f * (one - f)
            gx[:, :, 3] = go
            gxs.append(gx.reshape(x1.shape))
        self.retain_inputs((0, 1, 2, 3, 4, 5, 6))
        return g * f1, g * f2, gxs[0], gxs[1]

    def backward(self, indexes, grad_outputs):
        c1, c2, x1, x2, c, gc, gh = self.get_retained_inputs()
        xp = backend.get_array_module(x1.array)
        shape = (x1.shape[0], c1.shape[1], 4, *x1.shape[2:])
        ggs = [
            xp.zeros_like(v.array) if gg is None else gg
            for v, gg in zip((c1, c2, x1, x2), grad_outputs, strict=True)
        ]
        ggc1, ggc2, ggx1, ggx2 = ggs
        gg1 = ggx1.reshape(shape)
        gg2 = ggx2.reshape(shape)
        r1 = x1.reshape(shape)
        r2 = x2.reshape(shape)
        o = sigmoid.sigmoid(r1[:, :, 3] + r2[:, :, 3])
        t = tanh.tanh(c)
        do = o * (1 - o)
        dt = 1 - t * t
        g = gc + gh * o * dt
        # Both children's output-gate gradients are the same expression.
        ggo = gg1[:, :, 3] + gg2[:, :, 3]

        branches = []
        dg = 0
        for r, gg, ggc, cp in ((r1, gg1, ggc1, c1), (r2, gg2, ggc2, c2)):
            a = tanh.tanh(r[:, :, 0])
            i = sigmoid.sigmoid(r[:, :, 1])
            f = sigmoid.sigmoid(r[:, :, 2])
            da = 1 - a * a
            di = i * (1 - i)
            df = f * (1 - f)
            gga, ggi, ggf = gg[:, :, 0], gg[:, :, 1], gg[:, :, 2]
            # Sensitivity of this child's outputs to g.
            dg = dg + ggc * f + gga * i * da + ggi * a * di + ggf * cp * df
            branches.append((a, i, f, da, di, df, gga, ggi, ggf, ggc, cp))

        g_gc = dg
        g_gh = dg * o * dt + ggo * t * do
        g_c = (dg * gh * o * (-2 * t) + ggo * gh * do) * dt
        g_xo = (dg * gh * dt + ggo * gh * t * (1 - 2 * o)) * do
        g_cps = []
        g_xs = []
        for a, i, f, da, di, df, gga, ggi, ggf, ggc, cp in branches:
            g_cps.append(ggf * g * df)
            g_xa = (gga * (-2) * g * i * a + ggi * g * di) * da
            g_xi = (gga * g * da + ggi * g * a * (1 - 2 * i)) * di
            g_xf = (ggc * g + ggf * g * cp * (1 - 2 * f)) * df
            g_x = stack.stack((g_xa, g_xi, g_xf, g_xo), axis=2)
            g_xs.append(g_x.reshape(x1.shape))
        return g_cps[0], g_cps[1], g_xs[0], g_xs[1], g_c, g_gc, g_gh


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

        c &= \\tanh(a_1) \\sigma(i_1) + \\tanh(a_2) \\sigma(i_2)
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
