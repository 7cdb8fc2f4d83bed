from chainer import backend
from chainer import function_node
from chainer.functions.activation import sigmoid
from chainer.functions.activation import tanh
from chainer.functions.array import concat
from chainer.functions.array import stack
from chainer.utils import type_check


def _activate(x, n_units):
    """Gate activations of ``x`` in planar layout (4, B, H, ...).

    ``gates[0]`` is tanh(a) and ``gates[1:]`` sigmoid(i, f, o), each a
    contiguous array, so every later elementwise op runs on contiguous memory
    (NumPy's loops over the interleaved layout, whose innermost axis has
    length 4, are many times slower).
    """
    xp = backend.get_array_module(x)
    r = x.reshape((x.shape[0], n_units, 4, *x.shape[2:]))
    planar = r.transpose((2, 0, 1, *range(3, r.ndim)))
    # An explicit C-ordered output: NumPy would otherwise follow x's layout.
    gates = xp.empty(planar.shape, x.dtype)
    gates[0] = planar[0]
    # sigmoid(z) = tanh(z / 2) / 2 + 1/2 never overflows; so halve the i, f, o
    # inputs while gathering, take one tanh of all four, then shift.
    half = x.dtype.type(0.5)
    xp.multiply(planar[1:], half, out=gates[1:])
    xp.tanh(gates, out=gates)
    sig = gates[1:]
    sig *= half
    sig += half
    return gates


class LSTM(function_node.FunctionNode):
    """Long short-term memory unit; one fused node (see :class:`LSTMGrad`).

    The activated gates and ``tanh(c)`` are kept on the node, so the first
    backward pass recomputes no transcendental function.
    """

    _gates = None
    _tanh_c = None

    @property
    def gates(self):
        """Activated gates ``(4, B, H, ...)`` kept for backward, or None.

        ``gates[0]`` is ``tanh(a)`` and ``gates[1:]`` the sigmoids of ``i``,
        ``f`` and ``o``. Set by the forward pass (a kernel override sets it
        too); :class:`LSTMGrad` reads it.
        """
        return self._gates

    @gates.setter
    def gates(self, value):
        self._gates = value

    @property
    def tanh_c(self):
        """``tanh(c)`` of the new cell state kept for backward, or None."""
        return self._tanh_c

    @tanh_c.setter
    def tanh_c(self, value):
        self._tanh_c = value

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("c", "x"))
        c_type, x_type = in_types
        type_check.expect(
            c_type.dtype.kind == "f",
            x_type.dtype == c_type.dtype,
            c_type.ndim >= 2,
            x_type.ndim >= 2,
            c_type.ndim == x_type.ndim,
            x_type.shape[0] <= c_type.shape[0],
            x_type.shape[1] == 4 * c_type.shape[1],
        )
        for i in range(2, type_check.eval(c_type.ndim)):
            type_check.expect(x_type.shape[i] == c_type.shape[i])

    def forward(self, inputs):
        c_prev, x = inputs
        xp = backend.get_array_module(x)
        batch = x.shape[0]
        gates = _activate(x, c_prev.shape[1])
        a, i, f, o = gates
        if batch == c_prev.shape[0]:
            c = a * i
            c += f * c_prev
            c_upd = c
        else:
            # Rows past the batch of x keep their state.
            c = c_prev.copy()
            c_upd = c[:batch]
            xp.multiply(a, i, out=c_upd)
            c_upd += f * c_prev[:batch]
        tanh_c = xp.tanh(c_upd)
        h = o * tanh_c
        self._gates = gates
        self._tanh_c = tanh_c
        self.retain_inputs((0, 1))
        self.retain_outputs((0,))
        return c, h

    def backward(self, indexes, grad_outputs):
        gc, gh = grad_outputs
        c_prev, x = self.get_retained_inputs()
        (c,) = self.get_retained_outputs()
        xp = backend.get_array_module(x.array)
        if gc is None:
            gc = xp.zeros_like(c.array)
        if gh is None:
            gh = xp.zeros((x.shape[0], *c.shape[1:]), c.dtype)
        grad = LSTMGrad(self._gates, self._tanh_c)
        return grad.apply((c_prev, x, c, gc, gh))


class LSTMGrad(function_node.FunctionNode):
    """Gradient of :class:`LSTM`, fused; its own backward gives double backprop.

    Inputs are ``(c_prev, x, c, gc, gh)``; outputs ``(gc_prev, gx)``. The
    forward pass reads the gate activations ``gates`` and ``tanh_c`` cached
    by the :class:`LSTM` node; built without them (``LSTMGrad()``), it
    computes both from ``x`` and ``c``.
    It pays: at batch 20 and 650 units (float32, the PTB language model of
    ``benchmarks/workloads/lstm_lm_step.py``) forward plus backward of
    :func:`lstm` take 0.25-0.5 ms, against 1.0 ms for the same math written
    with catalogue ops (separate, tanh, sigmoid, products).
    """

    def __init__(self, gates=None, tanh_c=None):
        self.gates = gates
        self.tanh_c = tanh_c

    def forward(self, inputs):
        c_prev, x, c, gc, gh = inputs
        xp = backend.get_array_module(x)
        batch = x.shape[0]
        gates = self.gates
        tanh_c = self.tanh_c
        if gates is None:
            gates = _activate(x, c_prev.shape[1])
        if tanh_c is None:
            tanh_c = xp.tanh(c[:batch])
        a, i, f, o = gates
        one = x.dtype.type(1)

        # Total gradient reaching the cell: through h and directly.
        g = tanh_c * tanh_c
        xp.subtract(one, g, out=g)
        g *= o
        g *= gh
        g += gc[:batch]

        # Derivatives of the activations: 1 - a^2 and s (1 - s) for i, f, o.
        d = xp.subtract(one, gates)
        d[1:] *= gates[1:]
        d[0] *= a + one
        d[0] *= i
        d[1] *= a
        d[2] *= c_prev[:batch]
        d[3] *= tanh_c
        # The last products write into the interleaved layout of x.
        gx = xp.empty((batch, c_prev.shape[1], 4, *x.shape[2:]), x.dtype)
        gx_planar = gx.transpose((2, 0, 1, *range(3, gx.ndim)))
        xp.multiply(d[:3], g, out=gx_planar[:3])
        xp.multiply(d[3], gh, out=gx_planar[3])

        if batch == c_prev.shape[0]:
            gc_prev = g
            gc_prev *= f
        else:
            gc_prev = xp.empty_like(c_prev)
            xp.multiply(g, f, out=gc_prev[:batch])
            gc_prev[batch:] = gc[batch:]
        self.retain_inputs((0, 1, 2, 3, 4))
        return gc_prev, gx.reshape(x.shape)

    def backward(self, indexes, grad_outputs):
        c_prev, x, c, gc, gh = self.get_retained_inputs()
        ggc_prev, ggx = grad_outputs
        xp = backend.get_array_module(x.array)
        batch = x.shape[0]
        full = c_prev.shape[0]
        n_units = c_prev.shape[1]
        rest = x.shape[2:]
        if ggc_prev is None:
            ggc_prev = xp.zeros_like(c_prev.array)
        if ggx is None:
            ggx = xp.zeros_like(x.array)

        xr = x.reshape((batch, n_units, 4, *rest))
        a = tanh.tanh(xr[:, :, 0])
        i = sigmoid.sigmoid(xr[:, :, 1])
        f = sigmoid.sigmoid(xr[:, :, 2])
        o = sigmoid.sigmoid(xr[:, :, 3])
        ggr = ggx.reshape((batch, n_units, 4, *rest))
        gga = ggr[:, :, 0]
        ggi = ggr[:, :, 1]
        ggf = ggr[:, :, 2]
        ggo = ggr[:, :, 3]
        if batch < full:
            cp = c_prev[:batch]
            t = tanh.tanh(c[:batch])
            gc_b = gc[:batch]
            ggcp_b = ggc_prev[:batch]
        else:
            cp = c_prev
            t = tanh.tanh(c)
            gc_b = gc
            ggcp_b = ggc_prev

        da = 1 - a * a  # tanh'
        di = i * (1 - i)  # sigmoid'
        df = f * (1 - f)
        do = o * (1 - o)
        dt = 1 - t * t
        g = gh * o * dt + gc_b
        # Gradient w.r.t. g of everything g feeds (gc_prev, ga, gi, gf).
        dg = ggcp_b * f + gga * i * da + ggi * a * di + ggf * cp * df

        g_gc = dg
        g_gh = dg * o * dt + ggo * t * do
        g_c = (dg * gh * o * (-2 * t) + ggo * gh * do) * dt
        g_cp = ggf * g * df
        g_xa = (gga * (-2) * g * i * a + ggi * g * di) * da
        g_xi = (gga * g * da + ggi * g * a * (1 - 2 * i)) * di
        g_xf = (ggcp_b * g + ggf * g * cp * (1 - 2 * f)) * df
        g_xo = (dg * gh * dt + ggo * gh * t * (1 - 2 * o)) * do
        g_x = stack.stack((g_xa, g_xi, g_xf, g_xo), axis=2).reshape(x.shape)

        if batch < full:
            pad = xp.zeros((full - batch, *c_prev.shape[1:]), c_prev.dtype)
            g_cp = concat.concat((g_cp, pad), axis=0)
            g_c = concat.concat((g_c, pad), axis=0)
            g_gc = concat.concat((g_gc, ggc_prev[batch:]), axis=0)
        return g_cp, g_x, g_c, g_gc, g_gh


def lstm(c_prev, x):
    """Long Short-Term Memory units as an activation function.

    This function implements LSTM units with forget gates. Let the previous
    cell state :math:`c_{\\text{prev}}` and the incoming signal :math:`x`.

    First, the incoming signal :math:`x` is split into four arrays
    :math:`a, i, f, o` of the same shapes along the second axis: ``x``'s
    second axis must have four times the length of ``c_prev``'s. The four
    are interleaved per unit: ``x.reshape(B, H, 4, ...)[:, :, k]`` is the
    ``k``-th of :math:`a` (cell input), :math:`i` (input gate), :math:`f`
    (forget gate) and :math:`o` (output gate). Then

    .. math::

        c &= \\tanh(a) \\sigma(i) + c_{\\text{prev}} \\sigma(f), \\\\
        h &= \\tanh(c) \\sigma(o).

    Variable-length inputs are supported: the batch of ``x`` may be smaller
    than that of ``c_prev``. Then only ``c[:len(x)]`` is updated and
    ``c[len(x):]`` is ``c_prev[len(x):]``, so sort the sequences by
    decreasing length.

    Args:
        c_prev (~chainer.Variable or :ref:`ndarray`): Previous cell state,
            shape :math:`(B, H, ...)`, float.
        x (~chainer.Variable or :ref:`ndarray`): Incoming signal, shape
            :math:`(B', 4H, ...)` with :math:`B' \\le B`, of the dtype of
            ``c_prev``.

    Returns:
        tuple: Two :class:`~chainer.Variable` objects ``c`` (the updated cell
        state, shape of ``c_prev``) and ``h`` (the outgoing signal, shape
        :math:`(B', H, ...)`).

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> c = np.zeros((2, 3), np.float32)
        >>> x = np.ones((2, 12), np.float32)
        >>> c, h = F.lstm(c, x)
        >>> c.shape, h.shape
        ((2, 3), (2, 3))
        >>> round(float(h.array[0, 0]), 4)
        0.3696

    See the original paper proposing LSTM with forget gates: `Long Short-Term
    Memory in Recurrent Neural Networks <http://www.felixgers.de/papers/phd.pdf>`_.
    """
    return LSTM().apply((c_prev, x))
