from chainer.functions.activation import sigmoid
from chainer.functions.activation import tanh
from chainer.functions.rnn import n_step_rnn
from chainer.utils import gemm


class NStepLSTM(n_step_rnn.BaseNStepRNN):
    """Stacked (bi-directional) LSTM layers.

    Internally the gates are stacked as ``o, i, f, a`` (weights ``W3, W0,
    W1, W2``): the three sigmoid gates are then contiguous for the forward
    pass and the three gates driven by the cell gradient for the backward.
    """

    n_weights = 8
    n_cells = 2
    weight_rows = ((3, 0, 1, 2), (7, 4, 5, 6))

    def _layer_forward(self, xp, x, h0, c0, w, b, steps, y):
        n = h0.shape[1]
        w_x, w_h = self._stacked_weights(xp, w)
        # g holds the gate pre-activations, then (in place) the activations.
        g = gemm.matmul(x, w_x.T)
        g += xp.concatenate((b[3] + b[7], b[0] + b[4], b[1] + b[5], b[2] + b[6]))
        # The recurrent weight multiplies every step: prepared once.
        recurrent = gemm.right_operand(w_h.T, len(steps))
        h = h0.copy()
        c = c0.copy()
        h_prev = xp.empty((len(x), n), x.dtype)
        c_prev = xp.empty_like(h_prev)
        tanh_c = xp.empty_like(h_prev)
        ia = xp.empty_like(h)
        for s, e in steps:
            rows = e - s
            hp = h[:rows]
            cp = c[:rows]
            h_prev[s:e] = hp
            c_prev[s:e] = cp
            gt = g[s:e]
            recurrent(hp, out=gt, accumulate=True)
            # sigmoid(v) = (tanh(v / 2) + 1) / 2 never overflows.
            sg = gt[:, : 3 * n]
            sg *= 0.5
            xp.tanh(sg, out=sg)
            sg *= 0.5
            sg += 0.5
            a = gt[:, 3 * n :]
            xp.tanh(a, out=a)
            cp *= gt[:, 2 * n : 3 * n]
            xp.multiply(gt[:, n : 2 * n], a, out=ia[:rows])
            cp += ia[:rows]
            tc = tanh_c[s:e]
            xp.tanh(cp, out=tc)
            xp.multiply(gt[:, :n], tc, out=hp)
            y[s:e] = hp
        return h, c, (x, w_x, w_h, g, h_prev, c_prev, tanh_c)

    def _layer_backward(self, xp, saved, gy, gh, gc, steps, need_gx, need_w):
        x, w_x, w_h, g, h_prev, c_prev, tanh_c = saved
        n = h_prev.shape[1]
        total = len(g)
        batch = len(gh)
        gh = gh.copy()
        gc = gc.copy()
        gg = xp.empty((total, 4 * n), g.dtype)
        # Scratch rows for one step. Every factor of the gate gradients is
        # computed step by step, on rows that stay in the core's cache (over
        # all steps at once, ten passes over arrays of the layer's size from
        # L3 took longer than this loop).
        dh = xp.empty((batch, n), g.dtype)
        dc = xp.empty_like(dh)
        t = xp.empty_like(dh)
        # (Not through gemm.right_operand: packing this weight measured no
        # faster than MKL's own products of it, also packed for the batch's
        # rows: backward 225.0 vs 220.1 ms a step, in-process alternation.)
        for s, e in reversed(steps):
            rows = e - s
            gt = g[s:e]
            o = gt[:, :n]
            i = gt[:, n : 2 * n]
            f = gt[:, 2 * n : 3 * n]
            a = gt[:, 3 * n :]
            tc = tanh_c[s:e]
            ggt = gg[s:e]
            gg_oif = ggt[:, : 3 * n]
            gg_o = ggt[:, :n]
            gg_i = ggt[:, n : 2 * n]
            gg_f = ggt[:, 2 * n : 3 * n]
            gg_a = ggt[:, 3 * n :]
            dh_t, dc_t, t_t, gh_t, gc_t = (v[:rows] for v in (dh, dc, t, gh, gc))
            # The sigmoids' derivatives s (1 - s), then each gate's factor.
            xp.subtract(1, gt[:, : 3 * n], out=gg_oif)
            gg_oif *= gt[:, : 3 * n]
            xp.add(gy[s:e], gh_t, out=dh_t)
            xp.multiply(dh_t, tc, out=t_t)
            gg_o *= t_t
            # dc = dh o (1 - tanh(c)^2) + gc
            xp.multiply(tc, tc, out=dc_t)
            xp.subtract(1, dc_t, out=dc_t)
            dc_t *= o
            dc_t *= dh_t
            dc_t += gc_t
            xp.multiply(dc_t, a, out=t_t)
            gg_i *= t_t
            xp.multiply(dc_t, c_prev[s:e], out=t_t)
            gg_f *= t_t
            # tanh's derivative 1 - a^2, for the cell input.
            xp.multiply(a, a, out=gg_a)
            xp.subtract(1, gg_a, out=gg_a)
            gg_a *= i
            gg_a *= dc_t
            xp.multiply(dc_t, f, out=gc_t)
            gemm.matmul(ggt, w_h, out=gh_t)
        gx = gemm.matmul(gg, w_x) if need_gx else None
        gw = gb = None
        if need_w:
            gw_x, gw_h = gemm.matmuls([(gg.T, x), (gg.T, h_prev)])
            gsum = gg.sum(axis=0)
            order = (1, 2, 3, 0)  # Chainer's W0..W3 = i, f, a, o
            gw = tuple(gw_x[j * n : (j + 1) * n] for j in order) + tuple(
                gw_h[j * n : (j + 1) * n] for j in order
            )
            gb_x = tuple(gsum[j * n : (j + 1) * n] for j in order)
            gb = gb_x + tuple(v.copy() for v in gb_x)
        return gx, gh, gc, gw, gb

    def _cell_composed(self, x, h, c, w, b):
        def gate(j):
            return x @ w[j].T + h @ w[j + 4].T + b[j] + b[j + 4]

        i = sigmoid.sigmoid(gate(0))
        f = sigmoid.sigmoid(gate(1))
        a = tanh.tanh(gate(2))
        o = sigmoid.sigmoid(gate(3))
        c = f * c + i * a
        return o * tanh.tanh(c), c


def n_step_lstm_base(
    n_layers, dropout_ratio, hx, cx, ws, bs, xs, use_bi_direction, **kwargs
):
    """Base function for stacked uni- and bi-directional LSTMs.

    :func:`n_step_lstm` and :func:`n_step_bilstm` call it; see them for the
    arguments.

    Args:
        n_layers (int): Number of layers.
        dropout_ratio (float): Dropout ratio of the inputs of layers after
            the first one (training mode only).
        hx (~chainer.Variable or :ref:`ndarray`): Initial hidden states of
            shape ``(S, B, N)`` (``(2S, B, N)`` if bi-directional).
        cx (~chainer.Variable or :ref:`ndarray`): Initial cell states, shaped
            as ``hx``.
        ws (list of list of ~chainer.Variable): Weights, eight per layer and
            direction.
        bs (list of list of ~chainer.Variable): Biases, eight per layer and
            direction.
        xs (list of ~chainer.Variable): Time-major inputs ``(B_t, I)``.
        use_bi_direction (bool): Whether the LSTM is bi-directional.

    Returns:
        tuple: ``hy``, ``cy`` and ``ys`` (a tuple of Variables, one per time
        step).
    """
    node = NStepLSTM(n_layers, dropout_ratio, use_bi_direction, **kwargs)
    return node.apply_sequences(hx, cx, ws, bs, xs)


def n_step_lstm(n_layers, dropout_ratio, hx, cx, ws, bs, xs, **kwargs):
    """Stacked uni-directional Long Short-Term Memory function.

    Given initial states :math:`h_0` and :math:`c_0`, input sequences
    :math:`x`, weights :math:`W` and biases :math:`b`, each layer computes
    for every time step :math:`t`

    .. math::

        i_t &= \\sigma(W_0 x_t + W_4 h_{t-1} + b_0 + b_4) \\\\
        f_t &= \\sigma(W_1 x_t + W_5 h_{t-1} + b_1 + b_5) \\\\
        a_t &= \\tanh(W_2 x_t + W_6 h_{t-1} + b_2 + b_6) \\\\
        o_t &= \\sigma(W_3 x_t + W_7 h_{t-1} + b_3 + b_7) \\\\
        c_t &= f_t \\cdot c_{t-1} + i_t \\cdot a_t \\\\
        h_t &= o_t \\cdot \\tanh(c_t)

    (the gate order of Chainer's implementation and of cuDNN: input, forget,
    cell input, output). The hidden states of layer :math:`k` are the inputs
    of layer :math:`k + 1`; in training mode (``chainer.config.train``)
    dropout with ``dropout_ratio`` is applied to the inputs of every layer
    after the first. Sequences of different lengths are supported: sort them
    by length in descending order and transpose them with
    :func:`~chainer.functions.transpose_sequence`, so that ``xs[t]`` holds the
    ``t``-th step of every sequence that long.

    Args:
        n_layers (int): Number of layers :math:`S`.
        dropout_ratio (float): Dropout ratio, in ``[0, 1)``.
        hx (~chainer.Variable or :ref:`ndarray`): Initial hidden states of
            shape ``(S, B, N)``: ``B`` is the mini-batch size and ``N`` the
            number of hidden units.
        cx (~chainer.Variable or :ref:`ndarray`): Initial cell states, shaped
            as ``hx``.
        ws (list of list of ~chainer.Variable): ``ws[i]`` holds the eight
            weight matrices of layer ``i``; ``ws[i][j]`` is :math:`W_j`.
            ``ws[0][j]`` for ``j < 4`` has shape ``(N, I)``; all others
            ``(N, N)``.
        bs (list of list of ~chainer.Variable): ``bs[i][j]`` is the bias
            :math:`b_j` of layer ``i``, of shape ``(N,)``.
        xs (list of ~chainer.Variable or :ref:`ndarray`): Inputs per time
            step; ``xs[t]`` has shape ``(B_t, I)`` with
            ``xs[t].shape[0] >= xs[t + 1].shape[0]`` and ``B_0 <= B``.

    Returns:
        tuple: ``(hy, cy, ys)``. ``hy`` and ``cy`` are the last hidden and
        cell states of each sequence and layer, shaped as ``hx``. ``ys`` is a
        tuple of Variables: ``ys[t]`` of shape ``(B_t, N)`` holds the last
        layer's hidden states at time ``t``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> batches = [3, 2, 1]  # variable-length sequences
        >>> in_size, out_size, n_layers = 3, 2, 2
        >>> xs = [np.ones((b, in_size), np.float32) for b in batches]
        >>> hx = np.ones((n_layers, 3, out_size), np.float32)
        >>> cx = np.ones((n_layers, 3, out_size), np.float32)
        >>> w_in = lambda i, j: in_size if i == 0 and j < 4 else out_size
        >>> ws = [[np.ones((out_size, w_in(i, j)), np.float32)
        ...        for j in range(8)] for i in range(n_layers)]
        >>> bs = [[np.ones(out_size, np.float32) for _ in range(8)]
        ...       for _ in range(n_layers)]
        >>> hy, cy, ys = F.n_step_lstm(n_layers, 0.0, hx, cx, ws, bs, xs)
        >>> hy.shape, cy.shape, [y.shape for y in ys]
        ((2, 3, 2), (2, 3, 2), [(3, 2), (2, 2), (1, 2)])
    """
    return n_step_lstm_base(
        n_layers, dropout_ratio, hx, cx, ws, bs, xs, False, **kwargs
    )


def n_step_bilstm(n_layers, dropout_ratio, hx, cx, ws, bs, xs, **kwargs):
    """Stacked bi-directional Long Short-Term Memory function.

    Each layer runs one LSTM (the equations of :func:`n_step_lstm`) forward
    in time and one backward in time, with their own weights; the layer's
    output at time :math:`t` is the concatenation :math:`[h^f_t; h^b_t]` of
    both directions, so layers after the first take ``2N`` inputs. Dropout
    and variable-length sequences behave as in :func:`n_step_lstm`.

    Args:
        n_layers (int): Number of layers :math:`S`.
        dropout_ratio (float): Dropout ratio, in ``[0, 1)``.
        hx (~chainer.Variable or :ref:`ndarray`): Initial hidden states of
            shape ``(2S, B, N)``; ``hx[2i]`` is the forward and
            ``hx[2i + 1]`` the backward direction of layer ``i``.
        cx (~chainer.Variable or :ref:`ndarray`): Initial cell states, shaped
            as ``hx``.
        ws (list of list of ~chainer.Variable): ``2S`` lists of eight
            weights, ordered as ``hx``: ``ws[2i + d][j]`` is :math:`W_j` of
            direction ``d`` of layer ``i``. For ``j < 4`` its shape is
            ``(N, I)`` in the first layer and ``(N, 2N)`` in the others; for
            ``j >= 4`` it is ``(N, N)``.
        bs (list of list of ~chainer.Variable): Biases of shape ``(N,)``,
            ordered as ``ws``.
        xs (list of ~chainer.Variable or :ref:`ndarray`): Inputs per time
            step, ``(B_t, I)``, non-increasing in ``B_t``.

    Returns:
        tuple: ``(hy, cy, ys)``: ``hy`` and ``cy`` have the shape of ``hx``;
        ``ys[t]`` has shape ``(B_t, 2N)``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> xs = [np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)]
        >>> hx = np.zeros((2, 2, 4), np.float32)
        >>> ws = [[np.ones((4, 3), np.float32)] * 4
        ...       + [np.ones((4, 4), np.float32)] * 4] * 2
        >>> bs = [[np.zeros(4, np.float32)] * 8] * 2
        >>> hy, cy, ys = F.n_step_bilstm(1, 0.0, hx, hx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(2, 8), (1, 8)])
    """
    return n_step_lstm_base(n_layers, dropout_ratio, hx, cx, ws, bs, xs, True, **kwargs)
