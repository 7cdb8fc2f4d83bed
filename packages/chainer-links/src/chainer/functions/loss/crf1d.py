from chainer import backend
from chainer import primitive_ops
from chainer import variable
from chainer.functions import _labels
from chainer.functions.array import concat
from chainer.functions.math import logsumexp
from chainer.utils import type_check


def _array(x):
    return x.array if isinstance(x, variable.Variable) else x


def _check_inputs(cost, xs, ys=None):
    cost = _array(cost)
    if cost.ndim != 2 or cost.shape[0] != cost.shape[1]:
        raise type_check.InvalidType(
            "cost.ndim == 2 and cost.shape[0] == cost.shape[1]",
            f"cost.shape={cost.shape}",
        )
    if len(xs) == 0:
        raise ValueError("xs must hold at least one step")
    n_label = cost.shape[0]
    prev = None
    for i, x in enumerate(xs):
        shape = _array(x).shape
        if len(shape) != 2 or shape[1] != n_label:
            raise type_check.InvalidType(
                f"xs[{i}].shape == (B, {n_label})", f"xs[{i}].shape={shape}"
            )
        if prev is not None and shape[0] > prev:
            raise type_check.InvalidType(
                f"xs[{i}].shape[0] <= xs[{i - 1}].shape[0] (sorted by length)",
                f"xs[{i}].shape[0]={shape[0]}, xs[{i - 1}].shape[0]={prev}",
            )
        prev = shape[0]
    if ys is None:
        return
    if len(ys) != len(xs):
        raise ValueError(f"len(ys) ({len(ys)}) must equal len(xs) ({len(xs)})")
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        y = _array(y)
        if y.dtype.kind != "i" or y.shape != _array(x).shape[:1]:
            raise type_check.InvalidType(
                f"ys[{i}]: int array of shape xs[{i}].shape[0:1]",
                f"ys[{i}]: {y.dtype} array of shape {y.shape}",
            )
    ys = [_array(y) for y in ys]
    xp = backend.get_array_module(ys[0])
    try:
        # All steps at once: one reduction (one synchronisation on a GPU).
        _labels.check_labels("crf1d", xp.concatenate(ys), n_label)
    except _labels.LabelRangeError:
        for i, y in enumerate(ys):
            _labels.check_labels("crf1d", y, n_label, None, f"ys[{i}]", "cost.shape[0]")


def _join(head, rests):
    # Sequences end in order of decreasing index: the rows dropped at each
    # step go after those that continue.
    if not rests:
        return head
    return concat.concat([head, *rests[::-1]], axis=0)


def _path_score(cost, xs, ys):
    # Score of the label paths ys: unary costs plus transition costs.
    xp = backend.get_array_module(_array(xs[0]))
    ys = [_array(y) for y in ys]
    score = primitive_ops.get_item(xs[0], (xp.arange(len(ys[0])), ys[0]))
    rests = []
    for x, y, y_prev in zip(xs[1:], ys[1:], ys[:-1], strict=True):
        batch = len(y)
        if score.shape[0] > batch:
            rests.append(score[batch:])
            score = score[:batch]
        score = (
            score
            + primitive_ops.get_item(x, (xp.arange(batch), y))
            + primitive_ops.get_item(cost, (y_prev[:batch], y))
        )
    return _join(score, rests)


def crf1d(cost, xs, ys, reduce="mean"):
    """Negative log-likelihood of a linear-chain CRF.

    With :math:`c_{st}` the transition cost from label :math:`s` to
    :math:`t`, :math:`x_{it}` the cost of label :math:`t` at position
    :math:`i` and :math:`y_i` the expected label at position :math:`i`:

    .. math::
        L = -\\left( \\sum_{i=1}^l x_{iy_i} + \\sum_{i=1}^{l-1}
            c_{y_i y_{i+1}} - \\log(Z) \\right),

    where :math:`l` is the sequence length and :math:`Z` the partition
    function.

    Sequences of different lengths are given sorted by decreasing length and
    transposed: ``xs[i]`` holds the ``i``-th step of every sequence that is
    longer than ``i``, so ``xs[i].shape[0]`` never grows with ``i``.

    Args:
        cost (~chainer.Variable or :ref:`ndarray`): Float transition costs
            of shape ``(K, K)``, where ``K`` is the number of labels.
        xs (list of ~chainer.Variable or :ref:`ndarray`): Costs of each step,
            ``xs[i]`` of shape ``(B_i, K)`` with ``B_i >= B_{i+1}``.
        ys (list of ~chainer.Variable or :ref:`ndarray`): Expected labels,
            ``ys[i]`` an integer array of shape ``(B_i,)``, each in ``[0, K)``
            (any other raises ``ValueError``).
        reduce (str): ``'mean'`` averages over the ``B_0`` sequences; ``'no'``
            returns the loss of each sequence, of shape ``(B_0,)``.

    Returns:
        ~chainer.Variable: The negative log-likelihood, of ``cost``'s dtype.

    Example:
        >>> import numpy as np
        >>> cost = np.zeros((3, 3), np.float32)
        >>> xs = [np.zeros((2, 3), np.float32), np.zeros((1, 3), np.float32)]
        >>> ys = [np.array([0, 1], np.int32), np.array([2], np.int32)]
        >>> crf1d(cost, xs, ys, reduce='no').array.round(4)  # log 9, log 3
        array([2.1972, 1.0986], dtype=float32)

    .. note:: See `Conditional Random Fields: Probabilistic Models for
        Segmenting and Labeling Sequence Data
        <https://repository.upenn.edu/cis_papers/159/>`_.
    """
    if reduce not in ("mean", "no"):
        raise ValueError(
            f"only 'mean' and 'no' are valid for 'reduce', but {reduce!r} is given"
        )
    _check_inputs(cost, xs, ys)
    n_label = _array(cost).shape[0]
    n_batch = _array(xs[0]).shape[0]
    alpha = variable.as_variable(xs[0])
    rests = []
    for x in xs[1:]:
        batch = _array(x).shape[0]
        if alpha.shape[0] > batch:
            rests.append(alpha[batch:])
            alpha = alpha[:batch]
        # alpha[b, t] = logsumexp_s(alpha[b, s] + cost[s, t]) + x[b, t]
        scores = primitive_ops.reshape(alpha, (batch, n_label, 1)) + cost
        alpha = logsumexp.logsumexp(scores, axis=1) + x
    logz = logsumexp.logsumexp(_join(alpha, rests), axis=1)
    loss = logz - _path_score(cost, xs, ys)
    if reduce == "mean":
        return primitive_ops.sum(loss) * (1.0 / n_batch)
    return loss


def argmax_crf1d(cost, xs):
    """Finds the label path that maximizes the score of a linear-chain CRF.

    Args:
        cost (~chainer.Variable or :ref:`ndarray`): Float transition costs
            of shape ``(K, K)``.
        xs (list of ~chainer.Variable or :ref:`ndarray`): Costs of each step,
            ``xs[i]`` of shape ``(B_i, K)`` with ``B_i >= B_{i+1}``, as in
            :func:`crf1d`.

    Returns:
        tuple: ``(s, ps)``: ``s`` is a :class:`~chainer.Variable` of shape
        ``(B_0,)`` holding the score of the best path of each sequence (its
        gradient flows to the costs on that path); ``ps`` is a list of
        ``len(xs)`` int32 arrays, ``ps[i]`` of shape ``(B_i,)``, the labels
        of the best paths.

    Example:
        >>> import numpy as np
        >>> cost = np.array([[0, 2], [0, 0]], np.float32)
        >>> xs = [np.array([[1, 0]], np.float32), np.array([[1, 0]], np.float32)]
        >>> s, ps = argmax_crf1d(cost, xs)
        >>> s.array, [p.tolist() for p in ps]
        (array([3.], dtype=float32), [[0], [1]])
    """
    _check_inputs(cost, xs)
    xp = backend.get_array_module(_array(xs[0]))
    c = _array(cost)
    alpha = _array(xs[0])
    rests = []
    max_inds = []
    for x in xs[1:]:
        x = _array(x)
        batch = len(x)
        if len(alpha) > batch:
            rests.append(alpha[batch:])
            alpha = alpha[:batch]
        else:
            rests.append(None)
        scores = alpha[:, :, None] + c
        max_inds.append(scores.argmax(axis=1))
        alpha = scores.max(axis=1) + x
    inds = alpha.argmax(axis=1)
    path = [inds]
    for m, rest in zip(max_inds[::-1], rests[::-1], strict=True):
        inds = m[xp.arange(len(inds)), inds]
        if rest is not None:
            inds = xp.concatenate([inds, rest.argmax(axis=1)])
        path.append(inds)
    path = [p.astype("i") for p in path[::-1]]
    return _path_score(cost, xs, path), path
