import math

from chainer import initializers
from chainer import link
from chainer.functions.array import concat
from chainer.functions.array import split_axis
from chainer.functions.rnn import lstm
from chainer.links.connection import linear
from chainer.links.rnn import _state


class _LSTMBase(link.Chain):
    """Parameters shared by :class:`LSTM` and :class:`StatelessLSTM`."""

    def __init__(
        self,
        in_size,
        out_size=None,
        lateral_init=None,
        upward_init=None,
        bias_init=None,
        forget_bias_init=None,
    ):
        if out_size is None:
            in_size, out_size = None, in_size
        super().__init__()
        self.state_size = out_size
        self.lateral_init = lateral_init
        self.upward_init = upward_init
        self.bias_init = 0 if bias_init is None else bias_init
        self.forget_bias_init = 1 if forget_bias_init is None else forget_bias_init
        with self.init_scope():
            self.upward = linear.Linear(in_size, 4 * out_size, initialW=0)
            self.lateral = linear.Linear(
                out_size, 4 * out_size, initialW=0, nobias=True
            )
        if in_size is not None:
            self._initialize_params()

    def _initialize_params(self):
        lateral_init = initializers._get_initializer(self.lateral_init)
        upward_init = initializers._get_initializer(self.upward_init)
        bias_init = initializers._get_initializer(self.bias_init)
        forget_bias_init = initializers._get_initializer(self.forget_bias_init)
        n = self.state_size
        # Each initializer fills one (H, in) block of rows at a time.
        for start in range(0, 4 * n, n):
            lateral_init(self.lateral.W.array[start : start + n])
            upward_init(self.upward.W.array[start : start + n])
        # Bias entry 4 * u + k belongs to gate k (a, i, f, o) of unit u.
        b = self.upward.b.array.reshape(n, 4)
        bias_init(b[:, 0])
        bias_init(b[:, 1])
        forget_bias_init(b[:, 2])
        bias_init(b[:, 3])

    def _initialize_upward(self, x):
        in_size = math.prod(x.shape[1:])
        self.upward.W.initialize((4 * self.state_size, in_size))
        self.upward.in_size = in_size
        self._initialize_params()


class StatelessLSTM(_LSTMBase):
    """Stateless LSTM layer: a fully-connected LSTM that holds no state.

    It computes the gate inputs from the new input ``x`` through ``upward``
    (:class:`~chainer.links.Linear`, with bias) and from the previous output
    ``h`` through ``lateral`` (without bias), then applies
    :func:`~chainer.functions.lstm`. The caller carries ``c`` and ``h``.

    Args:
        in_size (int or None): Dimension of the input vectors. If None (or
            when ``out_size`` is omitted and ``in_size`` is the output size),
            it is inferred at the first call.
        out_size (int): Dimensionality of the output vectors.
        lateral_init: Initializer of ``lateral.W`` (an initializer, scalar or
            array; None means :class:`~chainer.initializers.LeCunNormal`).
            Applied to each of the four :math:`(H, H)` row blocks.
        upward_init: Initializer of ``upward.W``, likewise.
        bias_init: Initializer of the bias of the cell input, input and
            output gates (default 0).
        forget_bias_init: Initializer of the forget gate's bias (default 1).

    Attributes:
        upward (~chainer.links.Linear): Linear layer of the input.
        lateral (~chainer.links.Linear): Linear layer of the previous output.
        state_size (int): Number of units.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> layer = L.StatelessLSTM(3, 4)
        >>> x = np.zeros((2, 3), np.float32)
        >>> c, h = layer(None, None, x)
        >>> c.shape, h.shape
        ((2, 4), (2, 4))
    """

    def forward(self, c, h, x):
        """Returns the new cell state and output of one step.

        Args:
            c (~chainer.Variable or None): Previous cell state, shape
                :math:`(B, H)`; None means zeros.
            h (~chainer.Variable or None): Previous output, shape
                :math:`(B, H)`; None means zeros.
            x (~chainer.Variable or :ref:`ndarray`): New input, shape
                :math:`(B, \\text{in\\_size})`.

        Returns:
            tuple: The new cell state ``c`` and output ``h``
            (:class:`~chainer.Variable`).
        """
        if self.upward.W.array is None:
            self._initialize_upward(x)
        lstm_in = self.upward(x)
        if h is not None:
            lstm_in += self.lateral(h)
        if c is None:
            c = _state.zeros(self, x.shape[0], x.dtype)
        return lstm.lstm(c, lstm_in)


class LSTM(_state.CellState, _LSTMBase):
    """Fully-connected LSTM layer that keeps its state.

    Each call runs one step: the gate inputs are ``upward(x) + lateral(h)``
    (the second term from the previous step's output, absent after
    :meth:`reset_state`) and :func:`~chainer.functions.lstm` gives the new
    cell state ``c`` and output ``h``, both kept as attributes.

    Mini-batches may shrink between steps (sequences sorted by decreasing
    length): with ``len(x)`` smaller than the stored state, only the first
    ``len(x)`` rows of ``c`` and ``h`` are updated and the rest carry over.
    A larger batch than the state's is an error.

    Args:
        in_size (int or None): Dimension of the input vectors. If None (or
            when ``out_size`` is omitted, ``L.LSTM(out_size)``), it is
            inferred at the first call.
        out_size (int): Dimensionality of the output vectors.
        lateral_init: Initializer of ``lateral.W`` (an initializer, scalar or
            array; None means :class:`~chainer.initializers.LeCunNormal`).
            Applied to each of the four :math:`(H, H)` row blocks.
        upward_init: Initializer of ``upward.W``, likewise.
        bias_init: Initializer of the bias of the cell input, input and
            output gates (default 0).
        forget_bias_init: Initializer of the forget gate's bias (default 1).

    Attributes:
        upward (~chainer.links.Linear): Linear layer of the input.
        lateral (~chainer.links.Linear): Linear layer of the previous output.
        c (~chainer.Variable): Cell state (None after :meth:`reset_state`).
        h (~chainer.Variable): Output of the previous step (likewise).
        state_size (int): Number of units.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> layer = L.LSTM(3, 4)
        >>> x = np.zeros((2, 3), np.float32)
        >>> layer(x).shape
        (2, 4)
        >>> layer(x).shape  # the state carries over
        (2, 4)
        >>> layer.reset_state()
    """

    def __init__(
        self,
        in_size,
        out_size=None,
        lateral_init=None,
        upward_init=None,
        bias_init=None,
        forget_bias_init=None,
    ):
        super().__init__(
            in_size, out_size, lateral_init, upward_init, bias_init, forget_bias_init
        )
        self.reset_state()

    def forward(self, x):
        """Runs one step and returns the new output ``h``.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): New input, shape
                :math:`(B, \\text{in\\_size})`; :math:`B` at most the batch of
                the stored state.

        Returns:
            ~chainer.Variable: The output of the step, shape :math:`(B, H)`.
        """
        if self.upward.W.array is None:
            self._initialize_upward(x)
        batch = x.shape[0]
        lstm_in = self.upward(x)
        h = self.h
        h_rest = None
        if h is not None:
            h_size = h.shape[0]
            if batch == h_size:
                lstm_in += self.lateral(h)
            elif batch == 0:
                h_rest = h
            elif h_size < batch:
                raise TypeError(
                    "The batch size of x must be equal to or less than the size "
                    f"of the previous state h: {batch} > {h_size}"
                )
            else:
                h_update, h_rest = split_axis.split_axis(h, [batch], axis=0)
                lstm_in += self.lateral(h_update)
        if self.c is None:
            self.c = _state.zeros(self, batch, x.dtype)
        self.c, y = lstm.lstm(self.c, lstm_in)
        if h_rest is None:
            self.h = y
        elif batch == 0:
            self.h = h_rest
        else:
            self.h = concat.concat((y, h_rest), axis=0)
        return y
