import numpy

from chainer import backend
from chainer import initializers
from chainer import link
from chainer import primitive_ops
from chainer import variable
from chainer.functions.array import transpose_sequence
from chainer.functions.loss import crf1d


def _sort_by_length(seqs):
    # Indices ordering the sequences by decreasing length, stable for ties.
    lengths = numpy.array([s.shape[0] for s in seqs])
    if lengths.size == 0 or lengths.min() == 0:
        raise ValueError("xs must hold at least one sequence, none of them empty")
    return numpy.argsort(-lengths, kind="stable")


def _unsort(v, order):
    # v[i] belongs to sequence order[i]; put it back at position order[i].
    inverse = numpy.empty_like(order)
    inverse[order] = numpy.arange(len(order))
    xp = backend.get_array_module(v)
    return primitive_ops.get_item(v, xp.asarray(inverse))


class CRF1d(link.Link):
    """Linear-chain conditional random field loss layer.

    This link wraps :func:`~chainer.functions.crf1d` and
    :func:`~chainer.functions.argmax_crf1d`. It holds the transition cost
    matrix ``cost`` of shape ``(n_label, n_label)`` as a parameter:
    ``cost[s, t]`` is the cost of moving from label ``s`` to label ``t``.

    By default the inputs are in the layout of
    :func:`~chainer.functions.crf1d`: ``xs[i]`` holds the ``i``-th step of
    every sequence longer than ``i``, the sequences being sorted by
    decreasing length. With ``transpose=True`` they are given one array per
    sequence, in any order, and the link sorts and transposes them.

    Args:
        n_label (int): Number of labels.
        initial_cost (:ref:`initializer <initializer>`, scalar, array or
            None): Initializer of the transition cost matrix; ``None`` means
            zeros.

    Attributes:
        cost (~chainer.Parameter): Transition cost parameter.

    .. seealso:: :func:`~chainer.functions.crf1d`

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> crf = L.CRF1d(3)
        >>> xs = [np.zeros((2, 3), np.float32), np.zeros((1, 3), np.float32)]
        >>> ys = [np.array([0, 1], np.int32), np.array([2], np.int32)]
        >>> crf(xs, ys, reduce='no').array.round(4)  # log 9, log 3
        array([2.1972, 1.0986], dtype=float32)
        >>> seqs = [np.zeros((1, 3), np.float32), np.zeros((2, 3), np.float32)]
        >>> labels = [np.array([2], np.int32), np.array([0, 1], np.int32)]
        >>> crf(seqs, labels, reduce='no', transpose=True).array.round(4)
        array([1.0986, 2.1972], dtype=float32)
    """

    def __init__(self, n_label, initial_cost=None):
        super().__init__()
        if initial_cost is None:
            initial_cost = initializers.Zero()
        with self.init_scope():
            self.cost = variable.Parameter(
                initializers._get_initializer(initial_cost), (n_label, n_label)
            )

    def forward(self, xs, ys, reduce="mean", transpose=False):
        """Computes the negative log-likelihood of a linear-chain CRF.

        Args:
            xs (list of ~chainer.Variable or :ref:`ndarray`): Costs of the
                labels. Without ``transpose``: ``xs[i]`` of shape
                ``(B_i, n_label)``, the ``i``-th step of the sequences sorted
                by decreasing length. With ``transpose``: ``xs[j]`` of shape
                ``(L_j, n_label)``, the ``j``-th sequence.
            ys (list of ~chainer.Variable or :ref:`ndarray`): Expected integer
                labels, laid out as ``xs`` (shapes ``(B_i,)`` or ``(L_j,)``).
            reduce (str): ``'mean'`` averages over the sequences; ``'no'``
                returns the loss of each sequence, in the order of the given
                sequences.
            transpose (bool): If ``True``, ``xs`` and ``ys`` hold one array
                per sequence, which the link sorts by length and transposes.

        Returns:
            ~chainer.Variable: The average negative log-likelihood, or with
            ``reduce='no'`` that of each sequence, of shape ``(B,)``.
        """
        if not transpose:
            return crf1d.crf1d(self.cost, xs, ys, reduce)
        if len(xs) != len(ys):
            raise ValueError(f"len(xs) ({len(xs)}) must equal len(ys) ({len(ys)})")
        order = _sort_by_length(xs)
        trans_x = transpose_sequence.transpose_sequence([xs[i] for i in order])
        trans_y = transpose_sequence.transpose_sequence([ys[i] for i in order])
        loss = crf1d.crf1d(self.cost, trans_x, trans_y, reduce)
        if reduce == "no":
            loss = _unsort(loss, order)
        return loss

    def argmax(self, xs, transpose=False):
        """Computes the label paths that maximize the joint probability.

        Args:
            xs (list of ~chainer.Variable or :ref:`ndarray`): Costs of the
                labels, laid out as in :meth:`forward`.
            transpose (bool): If ``True``, ``xs`` holds one array per
                sequence, and so does the returned path.

        Returns:
            tuple: ``(score, path)``. ``score`` is a
            :class:`~chainer.Variable` of shape ``(B,)`` holding the score of
            the best path of each sequence; ``path`` is a list of int32
            arrays holding the labels of the best paths, laid out as ``xs``
            (with ``transpose``, ``path[j]`` of shape ``(L_j,)`` for the
            ``j``-th sequence, and ``score`` in the order of the sequences).

        .. seealso:: :func:`~chainer.functions.argmax_crf1d`
        """
        if not transpose:
            return crf1d.argmax_crf1d(self.cost, xs)
        order = _sort_by_length(xs)
        trans_x = transpose_sequence.transpose_sequence([xs[i] for i in order])
        score, trans_path = crf1d.argmax_crf1d(self.cost, trans_x)
        sorted_path = transpose_sequence.transpose_sequence(trans_path)
        path = [None] * len(xs)
        for i, p in zip(order, sorted_path, strict=True):
            path[i] = p.array
        return _unsort(score, order), path
