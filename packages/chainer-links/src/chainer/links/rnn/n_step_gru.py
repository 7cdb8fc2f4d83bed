from chainer.functions.rnn import n_step_gru
from chainer.links.rnn import n_step_rnn


class NStepGRUBase(n_step_rnn.NStepRNNBase):
    """Base link class for stacked GRU/BiGRU links.

    Each layer and direction holds six weights ``w0, ..., w5`` and six
    biases ``b0, ..., b5`` as :func:`~chainer.functions.n_step_gru` uses
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

    n_weights = 6
    _weight_rows = n_step_gru.NStepGRU.weight_rows


class NStepGRU(NStepGRUBase):
    """Stacked uni-directional GRU for sequences.

    It holds the parameters of :func:`~chainer.functions.n_step_gru` and
    calls it on a mini-batch of variable-length sequences (given in any
    order; they are sorted internally).

    Args:
        n_layers (int): Number of layers.
        in_size (int): Dimensionality of input vectors.
        out_size (int): Dimensionality of hidden states and output vectors.
        dropout (float): Dropout ratio.
        initialW (:ref:`initializer <initializer>`): Initializer of the
            weights (default :class:`~chainer.initializers.LeCunNormal`).
        initial_bias (:ref:`initializer <initializer>`): Initializer of the
            biases (default zero).

    .. seealso:: :func:`chainer.functions.n_step_gru`

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> gru = L.NStepGRU(1, 3, 4, 0.0)
        >>> xs = [np.ones((5, 3), np.float32), np.ones((2, 3), np.float32)]
        >>> hy, ys = gru(None, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((1, 2, 4), [(5, 4), (2, 4)])
    """

    use_bi_direction = False
    _rnn = staticmethod(n_step_gru.n_step_gru)


class NStepBiGRU(NStepGRUBase):
    """Stacked bi-directional GRU for sequences.

    It holds the parameters of :func:`~chainer.functions.n_step_bigru` and
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

    .. seealso:: :func:`chainer.functions.n_step_bigru`
    """

    use_bi_direction = True
    _rnn = staticmethod(n_step_gru.n_step_bigru)
