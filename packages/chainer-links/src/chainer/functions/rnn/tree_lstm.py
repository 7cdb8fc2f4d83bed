from chainer import backend
from chainer import function_node
from chainer.functions.activation import sigmoid
from chainer.functions.activation import tanh
from chainer.functions.array import stack
from chainer.utils import type_check


class TreeLSTM(function_node.FunctionNode):
    """Tree-LSTM unit with one forget gate per child; forward fused."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() >= 2)
        c_types = in_types[:-1]
        x_type = in_types[-1]
        n_ary = len(c_types)
        type_check.expect(x_type.ndim >= 2)
        for c_type in c_types:
            type_check.expect(
                c_type.dtype.kind == "f",
                x_type.dtype == c_type.dtype,
                c_type.ndim == x_type.ndim,
                x_type.shape[0] == c_type.shape[0],
                x_type.shape[1] == (3 + n_ary) * c_type.shape[1],
            )
            for j in range(2, type_check.eval(c_type.ndim)):
                type_check.expect(x_type.shape[j] == c_type.shape[j])

    def forward(self, inputs):
        cs = inputs[:-1]
        x = inputs[-1]
        xp = backend.get_array_module(x)
        n_gates = 3 + len(cs)
        r = x.reshape((x.shape[0], n_gates, x.shape[1] // n_gates, *x.shape[2:]))
        half = x.dtype.type(0.5)
        # Slot 0 is tanh(a); the others sigmoid(z) = tanh(z / 2) / 2 + 1/2.
        gates = r * half
        gates[:, 0] = r[:, 0]
        xp.tanh(gates, out=gates)
        sig = gates[:, 1:]
        sig *= half
        sig += half
        c = gates[:, 0] * gates[:, 1]
        for k, c_k in enumerate(cs):
            c += gates[:, 3 + k] * c_k
        h = gates[:, 2] * xp.tanh(c)
        self.retain_inputs(tuple(range(len(inputs))))
        self.retain_outputs((0,))
        return c, h

    def backward(self, indexes, grad_outputs):
        inputs = self.get_retained_inputs()
        cs = inputs[:-1]
        x = inputs[-1]
        (c,) = self.get_retained_outputs()
        gc, gh = grad_outputs
        n_gates = 3 + len(cs)
        r = x.reshape((x.shape[0], n_gates, x.shape[1] // n_gates, *x.shape[2:]))
        a = tanh.tanh(r[:, 0])
        i = sigmoid.sigmoid(r[:, 1])
        o = sigmoid.sigmoid(r[:, 2])
        fs = [sigmoid.sigmoid(r[:, 3 + k]) for k in range(len(cs))]
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
        gfs = [g * c_k * f * (1 - f) for c_k, f in zip(cs, fs, strict=True)]
        gx = stack.stack([ga, gi, go, *gfs], axis=1).reshape(x.shape)
        return (*[g * f for f in fs], gx)


def tree_lstm(*inputs):
    """TreeLSTM unit as an activation function.

    This function implements TreeLSTM units both for N-ary TreeLSTM and
    Child-Sum TreeLSTM. Let the children's cell states be
    :math:`c_1, \\dots, c_N` and the incoming signal :math:`x`.

    First, :math:`x` is split along its second axis into :math:`3 + N` equal,
    contiguous blocks :math:`a, i, o, f_1, \\dots, f_N` (in that order; unlike
    :func:`~chainer.functions.lstm`, the gates are not interleaved): cell input,
    input gate, output gate and one forget gate per child. So :math:`x`'s
    second axis is :math:`3 + N` times the length of each :math:`c_n`'s.
    Then

    .. math::

        c &= \\tanh(a) \\sigma(i) + \\sum_{n} c_n \\sigma(f_n), \\\\
        h &= \\tanh(c) \\sigma(o).

    Args:
        inputs: ``c_1, ..., c_N, x``: the :math:`N \\ge 1` children's cell
            states (:class:`~chainer.Variable` or :ref:`ndarray`, shape
            :math:`(B, H, ...)`, float) followed by the incoming signal of
            shape :math:`(B, (3 + N) H, ...)`, all of one dtype.

    Returns:
        tuple: Two :class:`~chainer.Variable` objects ``c`` (the cell state)
        and ``h`` (the outgoing signal), both of shape :math:`(B, H, ...)`.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> c1 = np.ones((2, 3), np.float32)
        >>> c2 = np.ones((2, 3), np.float32)
        >>> x = np.zeros((2, 15), np.float32)
        >>> c, h = F.tree_lstm(c1, c2, x)
        >>> c.array[0]
        array([1., 1., 1.], dtype=float32)

    See `Improved Semantic Representations From Tree-Structured Long
    Short-Term Memory Networks <https://arxiv.org/abs/1503.00075>`_.
    """
    return TreeLSTM().apply(inputs)
