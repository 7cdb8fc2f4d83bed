import chainer
from chainer import link
from chainer.functions.activation import sigmoid
from chainer.functions.activation import tanh
from chainer.functions.array import concat
from chainer.functions.array import split_axis
from chainer.functions.rnn import tree_lstm
from chainer.links.connection import linear


def _zeros_for_none(link_, cs, hs, x):
    """Returns ``x``, or zeros of the batch and dtype of some child if None."""
    if x is not None:
        return x
    base = next((v for v in (*cs, *hs) if v is not None), None)
    if base is None:
        raise ValueError("All inputs (cs, hs, x) are None.")
    with chainer.using_device(link_.device):
        return link_.xp.zeros((base.shape[0], link_.in_size), base.dtype)


def _pad_zero_nodes(xp, vs, shape, dtype):
    if any(v is None for v in vs):
        zero = xp.zeros(shape, dtype)
        return tuple(zero if v is None else v for v in vs)
    return tuple(vs)


class ChildSumTreeLSTM(link.Chain):
    """Child-Sum TreeLSTM unit, for trees with any number of children.

    A node with children states :math:`(c_k, h_k)` and input :math:`x`
    computes, with :math:`\\tilde{h} = \\sum_k h_k`:

    .. math::

        [a; i; o] &= W_{x,aio} x + W_{h,aio} \\tilde{h}, \\\\
        f_k &= W_{x,f} x + W_{h,f} h_k, \\\\
        c, h &= \\text{tree\\_lstm}(c_1, \\dots, c_N,
                 [a; i; o; f_1; \\dots; f_N]).

    Here ``W_x`` is a :class:`~chainer.links.Linear` of output
    :math:`4H` (its first :math:`3H` outputs for :math:`a, i, o`, the last
    :math:`H` for the forget gates) and ``W_h_aio``, ``W_h_f`` are linear
    layers without bias. A leaf (no children) gives
    :math:`c = \\sigma(i) \\tanh(a)`, :math:`h = \\sigma(o) \\tanh(c)`.

    Args:
        in_size (int): Dimension of the input vectors.
        out_size (int): Dimension of the cell and output vectors.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> node = L.ChildSumTreeLSTM(3, 4)
        >>> x = np.ones((2, 3), np.float32)
        >>> c1, h1 = node(x)  # a leaf
        >>> c2, h2 = node(x)
        >>> c, h = node(c1, c2, h1, h2, x)
        >>> c.shape, h.shape
        ((2, 4), (2, 4))

    See `Improved Semantic Representations From Tree-Structured Long
    Short-Term Memory Networks <https://arxiv.org/abs/1503.00075>`_.
    """

    def __init__(self, in_size, out_size):
        super().__init__()
        with self.init_scope():
            self.W_x = linear.Linear(in_size, 4 * out_size)
            self.W_h_aio = linear.Linear(out_size, 3 * out_size, nobias=True)
            self.W_h_f = linear.Linear(out_size, out_size, nobias=True)
        self.in_size = in_size
        self.state_size = out_size

    def forward(self, *cshsx):
        """Returns the cell state and output of a node from its children.

        Args:
            cshsx: ``c_1, ..., c_N, h_1, ..., h_N, x``: the children's cell
                states and outputs (:class:`~chainer.Variable`, shape
                :math:`(B, H)`; None for a missing child, taken as zeros) and
                the input of shape :math:`(B, \\text{in\\_size})` (None means
                zeros). :math:`N` may be 0.

        Returns:
            tuple: The cell state ``c`` and output ``h``
            (:class:`~chainer.Variable`, shape :math:`(B, H)`).
        """
        if len(cshsx) % 2 != 1:
            raise ValueError(
                "ChildSumTreeLSTM takes c_1..c_N, h_1..h_N and x: an odd number "
                f"of arguments, got {len(cshsx)}"
            )
        n = len(cshsx) // 2
        cs = cshsx[:n]
        hs = cshsx[n:-1]
        x = _zeros_for_none(self, cs, hs, cshsx[-1])
        W_x_in = self.W_x(x)
        W_x_aio_in, W_x_f_in = split_axis.split_axis(
            W_x_in, [3 * self.state_size], axis=1
        )
        if n == 0:
            a, i, o = split_axis.split_axis(W_x_aio_in, 3, axis=1)
            c = sigmoid.sigmoid(i) * tanh.tanh(a)
            h = sigmoid.sigmoid(o) * tanh.tanh(c)
            return c, h

        shape = (x.shape[0], self.state_size)
        hs = _pad_zero_nodes(self.xp, hs, shape, x.dtype)
        cs = _pad_zero_nodes(self.xp, cs, shape, x.dtype)
        h_sum = hs[0]
        for h_k in hs[1:]:
            h_sum = h_sum + h_k
        aio_in = self.W_h_aio(h_sum) + W_x_aio_in
        # One GEMM over the stacked children, then back to (B, N * H).
        W_h_fs = split_axis.split_axis(self.W_h_f(concat.concat(hs, axis=0)), n, axis=0)
        f_in = concat.concat(W_h_fs, axis=1) + concat.concat((W_x_f_in,) * n, axis=1)
        tree_lstm_in = concat.concat((aio_in, f_in), axis=1)
        return tree_lstm.tree_lstm(*cs, tree_lstm_in)


class NaryTreeLSTM(link.Chain):
    """N-ary TreeLSTM unit, for trees whose nodes have ``n_ary`` ordered children.

    A node with children states :math:`(c_k, h_k)`, :math:`k = 1..N`, and
    input :math:`x` computes

    .. math::

        z &= W_x x + \\sum_{k} W_{h_k} h_k, \\\\
        c, h &= \\text{tree\\_lstm}(c_1, \\dots, c_N, z),

    where ``W_x`` (with bias) and ``W_h1`` ... ``W_hN`` (without) are
    :class:`~chainer.links.Linear` links of output :math:`(3 + N) H`, the
    blocks of :math:`z` being :math:`a, i, o, f_1, \\dots, f_N`.

    Args:
        in_size (int): Dimension of the input vectors.
        out_size (int): Dimension of the cell and output vectors.
        n_ary (int): Number of children of each node (at least 1).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> node = L.NaryTreeLSTM(3, 4, n_ary=2)
        >>> x = np.ones((2, 3), np.float32)
        >>> c1, h1 = node(None, None, None, None, x)  # a leaf
        >>> c, h = node(c1, None, h1, None, x)
        >>> h.shape
        (2, 4)

    See `Improved Semantic Representations From Tree-Structured Long
    Short-Term Memory Networks <https://arxiv.org/abs/1503.00075>`_.
    """

    def __init__(self, in_size, out_size, n_ary=2):
        if n_ary < 1:
            raise ValueError(f"n_ary must be at least 1, got {n_ary}")
        super().__init__()
        with self.init_scope():
            self.W_x = linear.Linear(in_size, (3 + n_ary) * out_size)
            for k in range(1, n_ary + 1):
                setattr(
                    self,
                    f"W_h{k}",
                    linear.Linear(out_size, (3 + n_ary) * out_size, nobias=True),
                )
        self.in_size = in_size
        self.state_size = out_size
        self.n_ary = n_ary

    def forward(self, *cshsx):
        """Returns the cell state and output of a node from its children.

        Args:
            cshsx: ``c_1, ..., c_N, h_1, ..., h_N, x`` with ``N = n_ary``: the
                children's cell states and outputs (:class:`~chainer.Variable`,
                shape :math:`(B, H)`; None for a missing child, taken as zeros)
                and the input of shape :math:`(B, \\text{in\\_size})` (None
                means zeros).

        Returns:
            tuple: The cell state ``c`` and output ``h``
            (:class:`~chainer.Variable`, shape :math:`(B, H)`).
        """
        if len(cshsx) != 2 * self.n_ary + 1:
            raise ValueError(
                f"NaryTreeLSTM with n_ary={self.n_ary} takes {2 * self.n_ary + 1} "
                f"arguments (c_1..c_N, h_1..h_N, x), got {len(cshsx)}"
            )
        cs = cshsx[: self.n_ary]
        hs = cshsx[self.n_ary : -1]
        x = _zeros_for_none(self, cs, hs, cshsx[-1])
        tree_lstm_in = self.W_x(x)
        for k, h in enumerate(hs, start=1):
            if h is not None:
                tree_lstm_in += getattr(self, f"W_h{k}")(h)
        cs = _pad_zero_nodes(
            self.xp, cs, (x.shape[0], self.state_size), tree_lstm_in.dtype
        )
        return tree_lstm.tree_lstm(*cs, tree_lstm_in)
