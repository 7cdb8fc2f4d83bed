import functools

import numpy

import chainer
from chainer import initializers
from chainer import link
from chainer import variable
from chainer.functions.array import permutate
from chainer.functions.array import transpose_sequence
from chainer.functions.rnn import n_step_rnn


def argsort_list_descent(lst):
    """Returns the indices that sort sequences by length, longest first.

    Args:
        lst (list of sized objects): The sequences.

    Returns:
        numpy.ndarray: ``int32`` indices; ties keep their original order.
    """
    return numpy.argsort([-len(x) for x in lst], kind="stable").astype(numpy.int32)


def permutate_list(lst, indices, inv):
    """Permutes a list: ``ret[i] = lst[indices[i]]`` (or the inverse).

    Args:
        lst (list): The list to permute.
        indices (sequence of int): A permutation of ``range(len(lst))``.
        inv (bool): If ``True``, apply the inverse: ``ret[indices[i]] = lst[i]``.

    Returns:
        list: The permuted list.
    """
    ret = [None] * len(lst)
    if inv:
        for i, ind in enumerate(indices):
            ret[ind] = lst[i]
    else:
        for i, ind in enumerate(indices):
            ret[i] = lst[ind]
    return ret


def _lay_out_in_one_buffer(params):
    # The parameters' arrays become consecutive row blocks of one new
    # buffer, so that the n-step function stacks them without a copy
    # (chainer.functions.rnn.n_step_rnn.stacked_rows). Updates, copyparams
    # and deserialization write into the arrays in place and keep this;
    # anything that replaces an array only costs the copy again.
    arrays = [param.array for param in params]
    if not all(isinstance(a, numpy.ndarray) for a in arrays):
        return
    buffer = numpy.concatenate(arrays)
    start = 0
    for param, a in zip(params, arrays, strict=True):
        param.array = buffer[start : start + len(a)]
        start += len(a)


class NStepRNNBase(link.ChainList):
    """Base link class for stacked RNN/BiRNN links.

    It holds one child link per layer and direction (``self[k]`` for
    direction ``d`` of layer ``i`` is ``k = i * D + d`` with ``D = 2`` for
    bi-directional links) with parameters ``w0, ..., w{n-1}`` of shape
    ``(out_size, in)`` and ``b0, ..., b{n-1}`` of shape ``(out_size,)``, the
    names Chainer saves them under. Subclasses set ``n_weights``,
    ``use_bi_direction`` and ``_rnn`` (the n-step function :meth:`rnn`
    calls) and override :attr:`n_cells` if needed.

    The gate weights that the LSTM and GRU functions stack into one matrix
    (their ``weight_rows``) are created as consecutive blocks of one NumPy
    buffer per layer and direction, so that every forward stacks them
    without a copy. Updates, ``copyparams`` and deserialization write into
    the arrays in place and keep that; assigning a new array to one of them
    (or ``copy(mode='copy')``, which copies each array on its own) is fine
    and only brings the copy back.

    Args:
        n_layers (int): Number of layers.
        in_size (int): Dimensionality of input vectors.
        out_size (int): Dimensionality of hidden states and output vectors.
        dropout (float): Dropout ratio of the inputs of layers after the first
            (training mode only).
        initialW (:ref:`initializer <initializer>`): Initializer of the
            weights: an initializer, a scalar or an array; None uses
            :class:`~chainer.initializers.LeCunNormal`.
        initial_bias (:ref:`initializer <initializer>`): Initializer of the
            biases; None means zero.

    Attributes:
        ws (list of list of ~chainer.Parameter): Weights, ``ws[k][j]`` being
            ``self[k].w{j}``.
        bs (list of list of ~chainer.Parameter): Biases, ordered as ``ws``.
    """

    n_weights = 0
    use_bi_direction = False

    def __init__(
        self,
        n_layers,
        in_size,
        out_size,
        dropout,
        *,
        initialW=None,
        initial_bias=None,
        **kwargs,
    ):
        for name, message in (
            (
                "use_cudnn",
                "use_cudnn argument is not supported anymore. Use chainer.using_config",
            ),
            (
                "use_bi_direction",
                "use_bi_direction is not supported anymore: "
                "use the bi-directional link classes",
            ),
            (
                "activation",
                "activation is not supported anymore: "
                "use the Tanh or ReLU link classes",
            ),
        ):
            if name in kwargs:
                raise ValueError(message)
        if kwargs:
            raise TypeError(
                f"got unexpected keyword argument(s): {', '.join(sorted(kwargs))}"
            )
        for label, value in (
            ("n_layers", n_layers),
            ("in_size", in_size),
            ("out_size", out_size),
        ):
            if not isinstance(value, (int, numpy.integer)) or value < 1:
                raise ValueError(f"{label} must be a positive integer, got {value!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in the range [0, 1), got {dropout}")
        direction = 2 if self.use_bi_direction else 1
        w_init = initializers._get_initializer(initialW)
        b_init = initializers._get_initializer(
            0 if initial_bias is None else initial_bias
        )
        half = self.n_weights // 2
        weights = []
        for i in range(n_layers):
            x_size = in_size if i == 0 else out_size * direction
            for _ in range(direction):
                weight = link.Link()
                with weight.init_scope():
                    for j in range(self.n_weights):
                        w_in = x_size if j < half else out_size
                        w = variable.Parameter(w_init, (out_size, w_in))
                        b = variable.Parameter(b_init, (out_size,))
                        setattr(weight, f"w{j}", w)
                        setattr(weight, f"b{j}", b)
                for rows in self._weight_rows:
                    _lay_out_in_one_buffer([getattr(weight, f"w{j}") for j in rows])
                weights.append(weight)
        super().__init__(*weights)
        self.n_layers = n_layers
        self.dropout = dropout
        self.out_size = out_size
        self.direction = direction

    # The weight indices the n-step function stacks (its ``weight_rows``).
    _weight_rows = ()

    @property
    def ws(self):
        return [[getattr(w, f"w{j}") for j in range(self.n_weights)] for w in self]

    @property
    def bs(self):
        return [[getattr(w, f"b{j}") for j in range(self.n_weights)] for w in self]

    @property
    def n_cells(self):
        """int: Number of state arrays (1, or 2 for LSTMs' ``h`` and ``c``)."""
        return 1

    def rnn(self, *args):
        """Calls the link's n-step function, e.g. :func:`~chainer.functions.n_step_rnn`.

        Args:
            args: ``n_layers, dropout, hx, ws, bs, xs`` (``hx, cx`` for LSTMs).

        Returns:
            tuple: ``(hy, ys)`` (``(hy, cy, ys)`` for LSTMs).
        """
        return self._rnn(*args)

    def init_hx(self, xs):
        """Returns zero initial states for the batch ``xs``.

        Args:
            xs (list of ~chainer.Variable): The input sequences.

        Returns:
            ~chainer.Variable: Zeros of shape ``(n_layers * D, len(xs),
            out_size)``.
        """
        shape = (self.n_layers * self.direction, len(xs), self.out_size)
        with chainer.using_device(self.device):
            return variable.Variable(self.xp.zeros(shape, dtype=xs[0].dtype))

    def forward(self, hx, xs, **kwargs):
        """Computes the hidden states of all layers and time steps.

        Args:
            hx (~chainer.Variable or None): Initial hidden states of shape
                ``(S, B, N)`` (``(2S, B, N)`` if bi-directional), ``S`` being
                ``n_layers``, ``B`` the mini-batch size and ``N`` the
                ``out_size``; None means zeros.
            xs (list of ~chainer.Variable): Input sequences, in any order:
                ``xs[i]`` has shape ``(L_i, I)``, ``I`` being ``in_size``.

        Returns:
            tuple: ``(hy, ys)``: ``hy`` is the updated hidden states, shaped
            as ``hx``; ``ys[i]`` of shape ``(L_i, N)`` (``(L_i, 2N)`` if
            bi-directional) holds the last layer's hidden states for
            ``xs[i]``.
        """
        (hy,), ys = self._call([hx], xs, **kwargs)
        return hy, ys

    def _call(self, hs, xs, **kwargs):
        if "train" in kwargs:
            raise ValueError(
                "train argument is not supported anymore. Use chainer.using_config"
            )
        if kwargs:
            raise TypeError(
                f"got unexpected keyword argument(s): {', '.join(sorted(kwargs))}"
            )
        if not isinstance(xs, (list, tuple)) or not xs:
            raise ValueError(
                f"{type(self).__name__}: xs must be a non-empty list of sequences"
            )
        indices = argsort_list_descent(xs)
        # Batches often come sorted already: then no permutation is needed.
        identity = bool((indices == numpy.arange(len(xs))).all())
        if not identity:
            xs = permutate_list(xs, indices, inv=False)
            dev_indices = self.xp.asarray(indices)
        if len(xs[0]) == 0:
            raise ValueError(
                f"{type(self).__name__}: xs must contain a non-empty sequence"
            )
        hxs = []
        for hx in hs:
            if hx is None:
                hx = self.init_hx(xs)
            elif hx.ndim != 3 or hx.shape[1] != len(xs):
                raise ValueError(
                    f"{type(self).__name__}: initial states must have shape "
                    f"(n_layers * {self.direction}, {len(xs)}, {self.out_size}) "
                    f"for {len(xs)} sequences, got {hx.shape}"
                )
            elif not identity:
                hx = permutate.permutate(hx, dev_indices, axis=1)
            hxs.append(hx)
        trans_x = transpose_sequence.transpose_sequence(xs)
        result = self.rnn(self.n_layers, self.dropout, *hxs, self.ws, self.bs, trans_x)
        hys = result[:-1]
        if not identity:
            hys = [permutate.permutate(h, dev_indices, axis=1, inv=True) for h in hys]
        ys = list(transpose_sequence.transpose_sequence(result[-1]))
        if len(ys) < len(xs):
            # Empty sequences (sorted last) get empty outputs.
            y0 = ys[0]
            empty = self.xp.zeros((0, y0.shape[1]), y0.dtype)
            ys.extend(variable.Variable(empty) for _ in range(len(xs) - len(ys)))
        if not identity:
            ys = permutate_list(ys, indices, inv=True)
        return hys, ys


class NStepRNNTanh(NStepRNNBase):
    """Stacked uni-directional RNN with ``tanh`` activation for sequences.

    It holds the parameters of :func:`~chainer.functions.n_step_rnn` and
    calls it with ``activation='tanh'`` on a mini-batch of variable-length
    sequences (given in any order; they are sorted internally).

    Args:
        n_layers (int): Number of layers.
        in_size (int): Dimensionality of input vectors.
        out_size (int): Dimensionality of hidden states and output vectors.
        dropout (float): Dropout ratio.
        initialW (:ref:`initializer <initializer>`): Initializer of the
            weights (default :class:`~chainer.initializers.LeCunNormal`).
        initial_bias (:ref:`initializer <initializer>`): Initializer of the
            biases (default zero).

    .. seealso:: :func:`chainer.functions.n_step_rnn`

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> rnn = L.NStepRNNTanh(2, 3, 4, 0.0)
        >>> xs = [np.ones((5, 3), np.float32), np.ones((2, 3), np.float32)]
        >>> hy, ys = rnn(None, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(5, 4), (2, 4)])
    """

    n_weights = 2
    use_bi_direction = False
    _rnn = staticmethod(functools.partial(n_step_rnn.n_step_rnn, activation="tanh"))


class NStepRNNReLU(NStepRNNBase):
    """Stacked uni-directional RNN with ``relu`` activation for sequences.

    It holds the parameters of :func:`~chainer.functions.n_step_rnn` and
    calls it with ``activation='relu'``.

    Args:
        n_layers (int): Number of layers.
        in_size (int): Dimensionality of input vectors.
        out_size (int): Dimensionality of hidden states and output vectors.
        dropout (float): Dropout ratio.
        initialW (:ref:`initializer <initializer>`): Initializer of the
            weights (default :class:`~chainer.initializers.LeCunNormal`).
        initial_bias (:ref:`initializer <initializer>`): Initializer of the
            biases (default zero).

    .. seealso:: :func:`chainer.functions.n_step_rnn`
    """

    n_weights = 2
    use_bi_direction = False
    _rnn = staticmethod(functools.partial(n_step_rnn.n_step_rnn, activation="relu"))


class NStepBiRNNTanh(NStepRNNBase):
    """Stacked bi-directional RNN with ``tanh`` activation for sequences.

    It holds the parameters of :func:`~chainer.functions.n_step_birnn` and
    calls it with ``activation='tanh'``; outputs have ``2 * out_size``
    features.

    Args:
        n_layers (int): Number of layers.
        in_size (int): Dimensionality of input vectors.
        out_size (int): Dimensionality of hidden states of each direction.
        dropout (float): Dropout ratio.
        initialW (:ref:`initializer <initializer>`): Initializer of the
            weights (default :class:`~chainer.initializers.LeCunNormal`).
        initial_bias (:ref:`initializer <initializer>`): Initializer of the
            biases (default zero).

    .. seealso:: :func:`chainer.functions.n_step_birnn`
    """

    n_weights = 2
    use_bi_direction = True
    _rnn = staticmethod(functools.partial(n_step_rnn.n_step_birnn, activation="tanh"))


class NStepBiRNNReLU(NStepRNNBase):
    """Stacked bi-directional RNN with ``relu`` activation for sequences.

    It holds the parameters of :func:`~chainer.functions.n_step_birnn` and
    calls it with ``activation='relu'``; outputs have ``2 * out_size``
    features.

    Args:
        n_layers (int): Number of layers.
        in_size (int): Dimensionality of input vectors.
        out_size (int): Dimensionality of hidden states of each direction.
        dropout (float): Dropout ratio.
        initialW (:ref:`initializer <initializer>`): Initializer of the
            weights (default :class:`~chainer.initializers.LeCunNormal`).
        initial_bias (:ref:`initializer <initializer>`): Initializer of the
            biases (default zero).

    .. seealso:: :func:`chainer.functions.n_step_birnn`
    """

    n_weights = 2
    use_bi_direction = True
    _rnn = staticmethod(functools.partial(n_step_rnn.n_step_birnn, activation="relu"))
