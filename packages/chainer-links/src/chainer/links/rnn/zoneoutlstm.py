from chainer import link
from chainer.functions.noise import zoneout
from chainer.functions.rnn import lstm
from chainer.links.connection import linear
from chainer.links.rnn import _state


class StatefulZoneoutLSTM(_state.CellState, link.Chain):
    """Fully-connected LSTM layer with zoneout, keeping its state.

    Each step computes the new cell state and output as
    :class:`~chainer.links.LSTM` does, then (in training mode) keeps each unit
    of the previous cell state with probability ``c_ratio`` and of the
    previous output with probability ``h_ratio`` instead of the new value
    (:func:`~chainer.functions.zoneout`). In test mode it is a plain LSTM.

    Args:
        in_size (int or None): Dimension of the input vectors (None: inferred
            at the first call).
        out_size (int): Dimensionality of the output and cell vectors.
        c_ratio (float): Zoneout ratio of the cell state, in ``[0, 1]``.
        h_ratio (float): Zoneout ratio of the output, in ``[0, 1]``.

    Attributes:
        upward (~chainer.links.Linear): Linear layer of the input.
        lateral (~chainer.links.Linear): Linear layer of the previous output.
        c (~chainer.Variable): Cell state (None after :meth:`reset_state`).
        h (~chainer.Variable): Output of the previous step (likewise).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> layer = L.StatefulZoneoutLSTM(3, 4, c_ratio=0.3, h_ratio=0.3)
        >>> layer(np.ones((2, 3), np.float32)).shape
        (2, 4)

    See `Zoneout: Regularizing RNNs by Randomly Preserving Hidden Activations
    <https://arxiv.org/abs/1606.01305>`_.
    """

    def __init__(self, in_size, out_size, c_ratio=0.5, h_ratio=0.5, **kwargs):
        if "train" in kwargs:
            raise ValueError(
                "train argument is not supported anymore. "
                "Use chainer.using_config('train', ...)"
            )
        if kwargs:
            raise TypeError(
                "StatefulZoneoutLSTM() got unexpected keyword arguments: "
                f"{sorted(kwargs)}"
            )
        super().__init__()
        self.state_size = out_size
        self.c_ratio = c_ratio
        self.h_ratio = h_ratio
        self.reset_state()
        with self.init_scope():
            self.upward = linear.Linear(in_size, 4 * out_size)
            self.lateral = linear.Linear(out_size, 4 * out_size, nobias=True)

    def forward(self, x):
        """Runs one step and returns the new output ``h``.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): New input, shape
                :math:`(B, \\text{in\\_size})`.

        Returns:
            ~chainer.Variable: The output of the step, shape :math:`(B, H)`.
        """
        lstm_in = self.upward(x)
        h = self.h
        if h is None:
            h = _state.zeros(self, x.shape[0], x.dtype)
        else:
            lstm_in += self.lateral(h)
        c = self.c
        if c is None:
            c = _state.zeros(self, x.shape[0], x.dtype)
        c_next, h_next = lstm.lstm(c, lstm_in)
        self.c = zoneout.zoneout(c, c_next, self.c_ratio)
        self.h = zoneout.zoneout(h, h_next, self.h_ratio)
        return self.h
