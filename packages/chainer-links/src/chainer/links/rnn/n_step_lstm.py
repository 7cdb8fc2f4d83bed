from chainer.functions.rnn import n_step_lstm
from chainer.links.rnn import n_step_rnn


class NStepLSTMBase(n_step_rnn.NStepRNNBase):
    """Base link class for stacked LSTM/BiLSTM links.

    Each layer and direction holds eight weights ``w0, ..., w7`` and eight
    biases ``b0, ..., b7`` as :func:`~chainer.functions.n_step_lstm` uses
    them.

    Args:
        n_layers (int): Number of layers.
        in_size (int): Dimensionality of input vectors.
        out_size (int): Dimensionality of hidden states and output vectors.
        dropout (float): Dropout ratio.
        initialW (:ref:`initializer <initializer>`): Initializer of the
            weights (default :class:`~chainer.initializers.LeCunNormal`).
        initial_bias (:ref:`initializer <initializer>`): Initializer of the
            biases (default zero).
    """

    n_weights = 8
    _weight_rows = n_step_lstm.NStepLSTM.weight_rows

    @property
    def n_cells(self):
        """int: Number of state arrays: 2 (``h`` and ``c``)."""
        return 2

    def forward(self, hx, cx, xs, **kwargs):
        """Computes the hidden and cell states of all layers and time steps.

        Args:
            hx (~chainer.Variable or None): Initial hidden states of shape
                ``(S, B, N)`` (``(2S, B, N)`` if bi-directional), ``S`` being
                ``n_layers``, ``B`` the mini-batch size and ``N`` the
                ``out_size``; None means zeros.
            cx (~chainer.Variable or None): Initial cell states, shaped as
                ``hx``; None means zeros.
            xs (list of ~chainer.Variable): Input sequences, in any order:
                ``xs[i]`` has shape ``(L_i, I)``, ``I`` being ``in_size``.

        Returns:
            tuple: ``(hy, cy, ys)``: ``hy`` and ``cy`` are the updated
            states, shaped as ``hx``; ``ys[i]`` of shape ``(L_i, N)``
            (``(L_i, 2N)`` if bi-directional) holds the last layer's hidden
            states for ``xs[i]``.
        """
        (hy, cy), ys = self._call([hx, cx], xs, **kwargs)
        return hy, cy, ys


class NStepLSTM(NStepLSTMBase):
    """Stacked uni-directional LSTM for sequences.

    It holds the parameters of :func:`~chainer.functions.n_step_lstm` and
    calls it on a mini-batch of variable-length sequences (given in any
    order; they are sorted internally). Unlike :class:`~chainer.links.LSTM`,
    it keeps no state between calls: pass ``hx`` and ``cx`` explicitly.

    Args:
        n_layers (int): Number of layers.
        in_size (int): Dimensionality of input vectors.
        out_size (int): Dimensionality of hidden states and output vectors.
        dropout (float): Dropout ratio.
        initialW (:ref:`initializer <initializer>`): Initializer of the
            weights (default :class:`~chainer.initializers.LeCunNormal`).
        initial_bias (:ref:`initializer <initializer>`): Initializer of the
            biases (default zero).

    .. seealso:: :func:`chainer.functions.n_step_lstm`

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> lstm = L.NStepLSTM(2, 3, 4, 0.1)
        >>> xs = [np.ones((5, 3), np.float32), np.ones((2, 3), np.float32)]
        >>> hy, cy, ys = lstm(None, None, xs)
        >>> hy.shape, cy.shape, [y.shape for y in ys]
        ((2, 2, 4), (2, 2, 4), [(5, 4), (2, 4)])
    """

    use_bi_direction = False
    _rnn = staticmethod(n_step_lstm.n_step_lstm)


class NStepBiLSTM(NStepLSTMBase):
    """Stacked bi-directional LSTM for sequences.

    It holds the parameters of :func:`~chainer.functions.n_step_bilstm` and
    calls it; outputs have ``2 * out_size`` features.

    Args:
        n_layers (int): Number of layers.
        in_size (int): Dimensionality of input vectors.
        out_size (int): Dimensionality of hidden states of each direction.
        dropout (float): Dropout ratio.
        initialW (:ref:`initializer <initializer>`): Initializer of the
            weights (default :class:`~chainer.initializers.LeCunNormal`).
        initial_bias (:ref:`initializer <initializer>`): Initializer of the
            biases (default zero).

    .. seealso:: :func:`chainer.functions.n_step_bilstm`
    """

    use_bi_direction = True
    _rnn = staticmethod(n_step_lstm.n_step_bilstm)
