from chainer.functions.activation import sigmoid
from chainer.functions.activation import tanh
from chainer.functions.rnn import n_step_rnn
from chainer.utils import gemm


class NStepGRU(n_step_rnn.BaseNStepRNN):
    """Stacked (bi-directional) GRU layers.

    Internally the input projection is stacked as ``n, r, z`` (weights
    ``W2, W0, W1``) and the hidden one as ``r, z, n`` (``W3, W4, W5``), so
    the gradients of both share the ``r, z`` columns of one buffer.
    """

    n_weights = 6
    weight_rows = ((2, 0, 1), (3, 4, 5))

    def _layer_forward(self, xp, x, h0, c0, w, b, steps, y):
        n = h0.shape[1]
        w_x, w_h = self._stacked_weights(xp, w)
        # g holds the pre-activations of n, r, z, then (in place) n, r, z.
        g = gemm.matmul(x, w_x.T)
        g += xp.concatenate((b[2], b[0] + b[3], b[1] + b[4]))
        b5 = b[5]
        # The recurrent weight multiplies every step: prepared once.
        recurrent = gemm.right_operand(w_h.T, len(steps))
        h = h0.copy()
        h_prev = xp.empty((len(x), n), x.dtype)
        hn_all = xp.empty_like(h_prev)  # W5 h + b5, which r scales
        for s, e in steps:
            rows = e - s
            hp = h[:rows]
            h_prev[s:e] = hp
            gh = recurrent(hp)
            gt = g[s:e]
            rz = gt[:, n:]
            rz += gh[:, : 2 * n]
            # sigmoid(v) = (tanh(v / 2) + 1) / 2 never overflows.
            rz *= 0.5
            xp.tanh(rz, out=rz)
            rz *= 0.5
            rz += 0.5
            hn = hn_all[s:e]
            xp.add(gh[:, 2 * n :], b5, out=hn)
            nt = gt[:, :n]
            nt += gt[:, n : 2 * n] * hn
            xp.tanh(nt, out=nt)
            # h = (1 - z) n + z h_prev = n + z (h_prev - n)
            hp -= nt
            hp *= gt[:, 2 * n :]
            hp += nt
            y[s:e] = hp
        return h, None, (x, w_x, w_h, g, h_prev, hn_all)

    def _layer_backward(self, xp, saved, gy, gh, gc, steps, need_gx, need_w):
        x, w_x, w_h, g, h_prev, hn_all = saved
        n = h_prev.shape[1]
        total = len(g)
        nt = g[:, :n]
        r = g[:, n : 2 * n]
        z = g[:, 2 * n :]
        # Step-independent factors of the gate gradients, for all steps at once.
        d_z = (h_prev - nt) * z * (1 - z)  # dh -> z pre-activation
        d_n = (1 - z) * (1 - nt * nt)  # dh -> n pre-activation
        d_r = hn_all * r * (1 - r)  # dn -> r pre-activation
        gh = gh.copy()
        # Columns n (input side), r, z, n (hidden side, before r scales it).
        gg = xp.empty((total, 4, n), g.dtype)
        gg2 = gg.reshape(total, 4 * n)
        for s, e in reversed(steps):
            rows = e - s
            dh = gy[s:e] + gh[:rows]
            ggt = gg[s:e]
            dn = ggt[:, 0]
            xp.multiply(dh, d_n[s:e], out=dn)
            xp.multiply(dn, d_r[s:e], out=ggt[:, 1])
            xp.multiply(dh, d_z[s:e], out=ggt[:, 2])
            xp.multiply(dn, r[s:e], out=ggt[:, 3])
            dh *= z[s:e]
            dh += gemm.matmul(gg2[s:e, n:], w_h)
            gh[:rows] = dh
        gx = gemm.matmul(gg2[:, : 3 * n], w_x) if need_gx else None
        gw = gb = None
        if need_w:
            gw_x, gw_h = gemm.matmuls([(gg2[:, : 3 * n].T, x), (gg2[:, n:].T, h_prev)])
            gsum = gg2.sum(axis=0)
            g_n, g_r, g_z, g_hn = (gsum[j * n : (j + 1) * n] for j in range(4))
            gw = (
                gw_x[n : 2 * n],
                gw_x[2 * n :],
                gw_x[:n],
                gw_h[:n],
                gw_h[n : 2 * n],
                gw_h[2 * n :],
            )
            gb = (g_r, g_z, g_n, g_r.copy(), g_z.copy(), g_hn)
        return gx, gh, None, gw, gb

    def _cell_composed(self, x, h, c, w, b):
        r = sigmoid.sigmoid(x @ w[0].T + b[0] + h @ w[3].T + b[3])
        z = sigmoid.sigmoid(x @ w[1].T + b[1] + h @ w[4].T + b[4])
        h_bar = tanh.tanh(x @ w[2].T + b[2] + r * (h @ w[5].T + b[5]))
        return (1 - z) * h_bar + z * h, None


def n_step_gru_base(
    n_layers, dropout_ratio, hx, ws, bs, xs, use_bi_direction, **kwargs
):
    """Base function for stacked uni- and bi-directional GRUs.

    :func:`n_step_gru` and :func:`n_step_bigru` call it; see them for the
    arguments.

    Args:
        n_layers (int): Number of layers.
        dropout_ratio (float): Dropout ratio of the inputs of layers after
            the first one (training mode only).
        hx (~chainer.Variable or :ref:`ndarray`): Initial hidden states of
            shape ``(S, B, N)`` (``(2S, B, N)`` if bi-directional).
        ws (list of list of ~chainer.Variable): Weights, six per layer and
            direction.
        bs (list of list of ~chainer.Variable): Biases, six per layer and
            direction.
        xs (list of ~chainer.Variable): Time-major inputs ``(B_t, I)``.
        use_bi_direction (bool): Whether the GRU is bi-directional.

    Returns:
        tuple: ``hy`` and ``ys`` (a tuple of Variables, one per time step).
    """
    node = NStepGRU(n_layers, dropout_ratio, use_bi_direction, **kwargs)
    hy, _, ys = node.apply_sequences(hx, None, ws, bs, xs)
    return hy, ys


def n_step_gru(n_layers, dropout_ratio, hx, ws, bs, xs, **kwargs):
    """Stacked uni-directional Gated Recurrent Unit function.

    Given an initial hidden state :math:`h_0`, input sequences :math:`x`,
    weights :math:`W` and biases :math:`b`, each layer computes for every
    time step :math:`t`

    .. math::

        r_t &= \\sigma(W_0 x_t + W_3 h_{t-1} + b_0 + b_3) \\\\
        z_t &= \\sigma(W_1 x_t + W_4 h_{t-1} + b_1 + b_4) \\\\
        h'_t &= \\tanh(W_2 x_t + b_2 + r_t \\cdot (W_5 h_{t-1} + b_5)) \\\\
        h_t &= (1 - z_t) \\cdot h'_t + z_t \\cdot h_{t-1}

    The hidden states of layer :math:`k` are the inputs of layer
    :math:`k + 1`; in training mode (``chainer.config.train``) dropout with
    ``dropout_ratio`` is applied to the inputs of every layer after the
    first. Sequences of different lengths are supported: sort them by length
    in descending order and transpose them with
    :func:`~chainer.functions.transpose_sequence`, so that ``xs[t]`` holds the
    ``t``-th step of every sequence that long.

    Args:
        n_layers (int): Number of layers :math:`S`.
        dropout_ratio (float): Dropout ratio, in ``[0, 1)``.
        hx (~chainer.Variable or :ref:`ndarray`): Initial hidden states of
            shape ``(S, B, N)``: ``B`` is the mini-batch size and ``N`` the
            number of hidden units.
        ws (list of list of ~chainer.Variable): ``ws[i]`` holds the six
            weight matrices of layer ``i``; ``ws[i][j]`` is :math:`W_j`.
            ``ws[0][j]`` for ``j < 3`` has shape ``(N, I)``; all others
            ``(N, N)``.
        bs (list of list of ~chainer.Variable): ``bs[i][j]`` is the bias
            :math:`b_j` of layer ``i``, of shape ``(N,)``.
        xs (list of ~chainer.Variable or :ref:`ndarray`): Inputs per time
            step; ``xs[t]`` has shape ``(B_t, I)`` with
            ``xs[t].shape[0] >= xs[t + 1].shape[0]`` and ``B_0 <= B``.

    Returns:
        tuple: ``(hy, ys)``. ``hy`` is the last hidden state of each sequence
        and layer, of the shape of ``hx``. ``ys`` is a tuple of Variables:
        ``ys[t]`` of shape ``(B_t, N)`` holds the last layer's hidden states
        at time ``t``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> xs = [np.ones((b, 3), np.float32) for b in [3, 2, 1]]
        >>> hx = np.zeros((1, 3, 2), np.float32)
        >>> ws = [[np.ones((2, 3), np.float32)] * 3
        ...       + [np.ones((2, 2), np.float32)] * 3]
        >>> bs = [[np.zeros(2, np.float32)] * 6]
        >>> hy, ys = F.n_step_gru(1, 0.0, hx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((1, 3, 2), [(3, 2), (2, 2), (1, 2)])
    """
    return n_step_gru_base(n_layers, dropout_ratio, hx, ws, bs, xs, False, **kwargs)


def n_step_bigru(n_layers, dropout_ratio, hx, ws, bs, xs, **kwargs):
    """Stacked bi-directional Gated Recurrent Unit function.

    Each layer runs one GRU (the equations of :func:`n_step_gru`) forward in
    time and one backward in time, with their own weights; the layer's
    output at time :math:`t` is the concatenation :math:`[h^f_t; h^b_t]` of
    both directions, so layers after the first take ``2N`` inputs. Dropout
    and variable-length sequences behave as in :func:`n_step_gru`.

    Args:
        n_layers (int): Number of layers :math:`S`.
        dropout_ratio (float): Dropout ratio, in ``[0, 1)``.
        hx (~chainer.Variable or :ref:`ndarray`): Initial hidden states of
            shape ``(2S, B, N)``; ``hx[2i]`` is the forward and
            ``hx[2i + 1]`` the backward direction of layer ``i``.
        ws (list of list of ~chainer.Variable): ``2S`` lists of six weights,
            ordered as ``hx``: ``ws[2i + d][j]`` is :math:`W_j` of direction
            ``d`` of layer ``i``. For ``j < 3`` its shape is ``(N, I)`` in the
            first layer and ``(N, 2N)`` in the others; for ``j >= 3`` it is
            ``(N, N)``.
        bs (list of list of ~chainer.Variable): Biases of shape ``(N,)``,
            ordered as ``ws``.
        xs (list of ~chainer.Variable or :ref:`ndarray`): Inputs per time
            step, ``(B_t, I)``, non-increasing in ``B_t``.

    Returns:
        tuple: ``(hy, ys)``: ``hy`` has the shape of ``hx``; ``ys[t]`` has
        shape ``(B_t, 2N)``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> xs = [np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)]
        >>> hx = np.zeros((2, 2, 4), np.float32)
        >>> ws = [[np.ones((4, 3), np.float32)] * 3
        ...       + [np.ones((4, 4), np.float32)] * 3] * 2
        >>> bs = [[np.zeros(4, np.float32)] * 6] * 2
        >>> hy, ys = F.n_step_bigru(1, 0.0, hx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(2, 8), (1, 8)])
    """
    return n_step_gru_base(n_layers, dropout_ratio, hx, ws, bs, xs, True, **kwargs)
