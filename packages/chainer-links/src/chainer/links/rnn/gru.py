from chainer import link
from chainer.functions.activation import sigmoid
from chainer.functions.activation import tanh
from chainer.functions.math import linear_interpolate
from chainer.links.connection import linear
from chainer.links.rnn import _state


class _GRUBase(link.Chain):
    """The six linear layers shared by the GRU links."""

    def __init__(self, in_size, out_size, init=None, inner_init=None, bias_init=None):
        super().__init__()
        with self.init_scope():
            self.W_r = linear.Linear(
                in_size, out_size, initialW=init, initial_bias=bias_init
            )
            self.U_r = linear.Linear(
                out_size, out_size, initialW=inner_init, initial_bias=bias_init
            )
            self.W_z = linear.Linear(
                in_size, out_size, initialW=init, initial_bias=bias_init
            )
            self.U_z = linear.Linear(
                out_size, out_size, initialW=inner_init, initial_bias=bias_init
            )
            self.W = linear.Linear(
                in_size, out_size, initialW=init, initial_bias=bias_init
            )
            self.U = linear.Linear(
                out_size, out_size, initialW=inner_init, initial_bias=bias_init
            )


class StatelessGRU(_GRUBase):
    """Stateless Gated Recurrent Unit (GRU).

    Given the previous hidden vector :math:`h` and an input :math:`x`:

    .. math::

        r &= \\sigma(W_r x + U_r h), \\\\
        z &= \\sigma(W_z x + U_z h), \\\\
        \\bar{h} &= \\tanh(W x + U (r \\odot h)), \\\\
        h_{\\text{new}} &= (1 - z) \\odot h + z \\odot \\bar{h}.

    Each of :math:`W_r, W_z, W, U_r, U_z, U` is a
    :class:`~chainer.links.Linear` child link (with bias) of that name. The
    link keeps no state: use :class:`StatefulGRU` for that.

    Args:
        in_size (int or None): Dimension of the input vectors (None: inferred
            at the first call).
        out_size (int): Dimension of the hidden vectors.
        init: Initializer of :math:`W_r, W_z, W` (None: LeCunNormal).
        inner_init: Initializer of :math:`U_r, U_z, U` (None: LeCunNormal).
        bias_init: Initializer of every bias (None: zeros).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> gru = L.StatelessGRU(3, 4)
        >>> h = np.zeros((2, 4), np.float32)
        >>> x = np.ones((2, 3), np.float32)
        >>> gru(h, x).shape
        (2, 4)

    See `On the Properties of Neural Machine Translation: Encoder-Decoder
    Approaches <https://www.aclweb.org/anthology/W14-4012>`_ and `Empirical
    Evaluation of Gated Recurrent Neural Networks on Sequence Modeling
    <https://arxiv.org/abs/1412.3555>`_.
    """

    def forward(self, h, x):
        """Returns the new hidden vector.

        Args:
            h (~chainer.Variable or :ref:`ndarray`): Previous hidden vector,
                shape :math:`(B, \\text{out\\_size})`.
            x (~chainer.Variable or :ref:`ndarray`): Input, shape
                :math:`(B, \\text{in\\_size})`.

        Returns:
            ~chainer.Variable: The new hidden vector, shape of ``h``.
        """
        r = sigmoid.sigmoid(self.W_r(x) + self.U_r(h))
        z = sigmoid.sigmoid(self.W_z(x) + self.U_z(h))
        h_bar = tanh.tanh(self.W(x) + self.U(r * h))
        return linear_interpolate.linear_interpolate(z, h_bar, h)


class StatefulGRU(_state.HiddenState, _GRUBase):
    """Stateful Gated Recurrent Unit: a GRU that keeps its hidden vector.

    Each call computes the new hidden vector as :class:`StatelessGRU` does,
    from the stored one (zeros, and so :math:`z \\odot \\bar{h}`, after
    :meth:`reset_state`), stores it as ``h`` and returns it.

    Args:
        in_size (int or None): Dimension of the input vectors (None: inferred
            at the first call).
        out_size (int): Dimension of the hidden vectors.
        init: Initializer of :math:`W_r, W_z, W` (None: LeCunNormal).
        inner_init: Initializer of :math:`U_r, U_z, U` (None: LeCunNormal).
        bias_init: Initializer of every bias (default 0).

    Attributes:
        h (~chainer.Variable): The hidden vector (None after
            :meth:`reset_state`).
        state_size (int): Dimension of the hidden vector.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> gru = L.StatefulGRU(3, 4)
        >>> x = np.ones((2, 3), np.float32)
        >>> gru(x).shape
        (2, 4)
        >>> gru.h.shape
        (2, 4)
    """

    def __init__(self, in_size, out_size, init=None, inner_init=None, bias_init=0):
        super().__init__(in_size, out_size, init, inner_init, bias_init)
        self.state_size = out_size
        self.reset_state()

    def forward(self, x):
        """Runs one step and returns the new hidden vector.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input, shape
                :math:`(B, \\text{in\\_size})`.

        Returns:
            ~chainer.Variable: The new hidden vector, shape
            :math:`(B, \\text{out\\_size})`.
        """
        z = self.W_z(x)
        h_bar = self.W(x)
        h = self.h
        if h is not None:
            r = sigmoid.sigmoid(self.W_r(x) + self.U_r(h))
            z += self.U_z(h)
            h_bar += self.U(r * h)
        z = sigmoid.sigmoid(z)
        h_bar = tanh.tanh(h_bar)
        if h is None:
            h_new = z * h_bar
        else:
            h_new = linear_interpolate.linear_interpolate(z, h_bar, h)
        self.h = h_new
        return h_new


class GRU(StatefulGRU):
    """Stateful Gated Recurrent Unit (the same as :class:`StatefulGRU`).

    Since Chainer v2 this link is stateful and takes only ``x``; calling it
    with ``(h, x)`` as the stateless GRU of Chainer v1 raises a ValueError
    that points to :class:`StatelessGRU`.

    Args:
        in_size (int or None): Dimension of the input vectors.
        out_size (int): Dimension of the hidden vectors.
        init: Initializer of :math:`W_r, W_z, W` (None: LeCunNormal).
        inner_init: Initializer of :math:`U_r, U_z, U` (None: LeCunNormal).
        bias_init: Initializer of every bias (default 0).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> gru = L.GRU(3, 4)
        >>> gru(np.ones((2, 3), np.float32)).shape
        (2, 4)
    """

    def __call__(self, *args):
        n_args = len(args)
        if n_args != 1:
            msg = (
                "Invalid argument. The length of GRU.__call__ must be 1. "
                f"But {n_args} is given. "
            )
            if n_args == 2:
                msg += (
                    "In Chainer v2, chainer.links.GRU is changed from stateless "
                    "to stateful. One possibility is you assume GRU to be "
                    "stateless. Use chainer.links.StatelessGRU instead."
                )
            raise ValueError(msg)
        return super().__call__(args[0])
