import itertools

import numpy

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


def _transpose(xs, length):
    # ys[t] = stack([x[t] for x in xs if len(x) > t]) for t < length, done as
    # one gather from the concatenated sequences followed by a split.
    if length == 0:
        return ()
    xp = backend.get_array_module(xs[0])
    if all(len(x) == length for x in xs):
        # Sequences of one length: a single copy into (length, batch, ...).
        return tuple(xp.stack(xs, axis=1))
    lengths = numpy.array([len(x) for x in xs])
    steps = numpy.arange(length)[:, None]
    offsets = numpy.concatenate(([0], numpy.cumsum(lengths)[:-1]))
    mask = lengths[None, :] > steps
    order = (offsets[None, :] + steps)[mask]
    sections = numpy.cumsum(mask.sum(axis=1))[:-1].tolist()
    flat = xp.concatenate(xs, axis=0)
    gathered = flat.take(xp.asarray(order), axis=0)
    return tuple(xp.split(gathered, sections))


class TransposeSequence(function_node.FunctionNode):
    """Transposition of a batch of sequences sorted by length."""

    def __init__(self, length):
        self._length = length

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        for x_type in in_types:
            type_check.expect(x_type.ndim >= 1)
        for p_type, n_type in itertools.pairwise(in_types):
            type_check.expect(
                p_type.shape[0] >= n_type.shape[0],
                p_type.shape[1:] == n_type.shape[1:],
                p_type.dtype == n_type.dtype,
            )

    def forward(self, inputs):
        ys = _transpose(inputs, self._length)
        self._shapes = [y.shape for y in ys]
        return ys

    def backward(self, indexes, grad_outputs):
        zero = None
        gys = []
        for gy, shape in zip(grad_outputs, self._shapes, strict=True):
            if gy is None:
                if zero is None:
                    given = next(g for g in grad_outputs if g is not None)
                    zero = backend.get_array_module(given.array).zeros
                gy = zero(shape, self.inputs[0].dtype)
            gys.append(gy)
        # Transposing back yields one gradient per non-empty sequence; the
        # empty ones (sorted last) get none.
        gxs = TransposeSequence(self._shapes[0][0]).apply(gys)
        return gxs + (None,) * (len(self.inputs) - len(gxs))


def transpose_sequence(xs):
    """Transposes a list of sequences.

    Given sequences ``xs`` sorted by length in descending order, returns
    ``ys`` with ``ys[t] = stack([x[t] for x in xs if len(x) > t])``. For
    example, sequences ``[(0, 1, 2, 3), (4, 5), (6,)]`` become
    ``[(0, 4, 6), (1, 5), (2,), (3,)]``. Applying it twice gives back the
    non-empty sequences. This is the layout that step-wise recurrent
    functions (e.g. :func:`~chainer.functions.n_step_lstm`) use for batches
    of variable-length sequences.

    Args:
        xs (list of ~chainer.Variable or :ref:`ndarray`): Sequences of shape
            ``(L_i, ...)``, sorted so that ``L_0 >= L_1 >= ...``; all share
            the trailing shape and the dtype.

    Returns:
        tuple of ~chainer.Variable: ``L_0`` arrays; ``ys[t]`` has shape
        ``(n_t, ...)`` where ``n_t`` is the number of sequences longer than
        ``t``. Empty if ``xs`` is empty.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> xs = [np.array([0, 1, 2, 3], np.float32),
        ...       np.array([4, 5], np.float32),
        ...       np.array([6], np.float32)]
        >>> [y.array.tolist() for y in F.transpose_sequence(xs)]
        [[0.0, 4.0, 6.0], [1.0, 5.0], [2.0], [3.0]]
    """
    if not xs:
        return ()
    return TransposeSequence(len(xs[0])).apply(tuple(xs))
