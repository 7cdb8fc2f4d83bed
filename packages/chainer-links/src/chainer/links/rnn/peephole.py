from chainer import link
from chainer.functions.activation import sigmoid
from chainer.functions.activation import tanh
from chainer.links.connection import linear
from chainer.links.rnn import _state


class StatefulPeepholeLSTM(_state.CellState, link.Chain):
    """Fully-connected LSTM layer with peephole connections, keeping its state.

    Like :class:`~chainer.links.LSTM`, but the gates also see the cell state:

    .. math::

        a &= \\tanh(a_x), \\quad
        i = \\sigma(i_x + P_i c_{\\text{prev}}), \\quad
        f = \\sigma(f_x + P_f c_{\\text{prev}}), \\\\
        c &= a \\odot i + f \\odot c_{\\text{prev}}, \\quad
        o = \\sigma(o_x + P_o c), \\quad
        h = o \\odot \\tanh(c),

    where :math:`(a_x, i_x, f_x, o_x)` are the gate inputs
    ``upward(x) + lateral(h_prev)``, interleaved per unit as in
    :func:`~chainer.functions.lstm`.

    Args:
        in_size (int or None): Dimension of the input vectors (None: inferred
            at the first call).
        out_size (int): Dimensionality of the output vectors.

    Attributes:
        upward (~chainer.links.Linear): Linear layer of the input.
        lateral (~chainer.links.Linear): Linear layer of the previous output.
        peep_i (~chainer.links.Linear): Peephole of the input gate.
        peep_f (~chainer.links.Linear): Peephole of the forget gate.
        peep_o (~chainer.links.Linear): Peephole of the output gate.
        c (~chainer.Variable): Cell state (None after :meth:`reset_state`).
        h (~chainer.Variable): Output of the previous step (likewise).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> layer = L.StatefulPeepholeLSTM(3, 4)
        >>> layer(np.ones((2, 3), np.float32)).shape
        (2, 4)
    """

    def __init__(self, in_size, out_size):
        super().__init__()
        self.state_size = out_size
        self.reset_state()
        with self.init_scope():
            self.upward = linear.Linear(in_size, 4 * out_size)
            self.lateral = linear.Linear(out_size, 4 * out_size, nobias=True)
            self.peep_i = linear.Linear(out_size, out_size, nobias=True)
            self.peep_f = linear.Linear(out_size, out_size, nobias=True)
            self.peep_o = linear.Linear(out_size, out_size, nobias=True)

    def forward(self, x):
        """Runs one step and returns the new output ``h``.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): New input, shape
                :math:`(B, \\text{in\\_size})`.

        Returns:
            ~chainer.Variable: The output of the step, shape :math:`(B, H)`.
        """
        lstm_in = self.upward(x)
        if self.h is not None:
            lstm_in += self.lateral(self.h)
        c = self.c
        if c is None:
            c = _state.zeros(self, x.shape[0], x.dtype)
        gates = lstm_in.reshape((lstm_in.shape[0], self.state_size, 4))
        a = tanh.tanh(gates[:, :, 0])
        i = sigmoid.sigmoid(gates[:, :, 1] + self.peep_i(c))
        f = sigmoid.sigmoid(gates[:, :, 2] + self.peep_f(c))
        c = a * i + f * c
        o = sigmoid.sigmoid(gates[:, :, 3] + self.peep_o(c))
        self.c = c
        self.h = o * tanh.tanh(c)
        return self.h
