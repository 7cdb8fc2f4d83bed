import collections.abc

import numpy

from chainer import backend
from chainer import function_node
from chainer import variable
from chainer.functions import _labels
from chainer.functions.array import stack
from chainer.utils import type_check


def _logsumexp3(a, b, c, xp):
    m = xp.maximum(xp.maximum(a, b), c)
    return m + xp.log(xp.exp(a - m) + xp.exp(b - m) + xp.exp(c - m))


def _shift(a, n, fill, xp):
    # Shifts along axis 1 by n (right for n > 0, left for n < 0), filling.
    out = xp.full_like(a, fill)
    if n > 0:
        out[:, n:] = a[:, :-n]
    else:
        out[:, :n] = a[:, -n:]
    return out


class ConnectionistTemporalClassification(function_node.FunctionNode):
    """CTC loss of (input_length, label_length, t, x) with x of shape (T, B, V)."""

    # log(0) stand-in: finite, so that no inf - inf arises in the recursions.
    zero_padding = -10000000000.0

    def __init__(self, blank_symbol, reduce="mean"):
        if reduce not in ("mean", "no"):
            raise ValueError(
                f"only 'mean' and 'no' are valid for 'reduce', but {reduce!r} is given"
            )
        self.blank_symbol = blank_symbol
        self.reduce = reduce

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 4)
        type_check.argname(in_types, ("input_length", "label_length", "t", "x"))
        input_length_type, label_length_type, t_type, x_type = in_types
        type_check.expect(input_length_type.dtype.kind == "i")
        type_check.expect(input_length_type.ndim == 1)
        type_check.expect(label_length_type.dtype.kind == "i")
        type_check.expect(label_length_type.ndim == 1)
        type_check.expect(t_type.dtype.kind == "i")
        type_check.expect(t_type.ndim == 2)
        type_check.expect(x_type.dtype.kind == "f")
        type_check.expect(x_type.ndim == 3)
        n_batch = x_type.shape[1]
        type_check.expect(t_type.shape[0] == n_batch)
        type_check.expect(input_length_type.shape[0] == n_batch)
        type_check.expect(label_length_type.shape[0] == n_batch)

    def forward(self, inputs):
        self.retain_inputs((3,))
        input_length, label_length, t, x = inputs
        xp = backend.get_array_module(x)
        n_time, n_batch, n_unit = x.shape
        name = "connectionist_temporal_classification"
        _labels.check_labels(
            name, input_length, n_time + 1, None, "input_length", "len(x) + 1"
        )
        _labels.check_labels(
            name, label_length, t.shape[1] + 1, None, "label_length", "t.shape[1] + 1"
        )
        # Labels past a sequence's label_length are padding, never read.
        labelled = xp.arange(t.shape[1]) < label_length[:, None]
        _labels.check_labels(name, xp.where(labelled, t, 0), n_unit, None, "t", "V")
        n_state = 2 * t.shape[1] + 1
        neg = self.zero_padding
        # float16 lacks the range of zero_padding and the precision needed.
        xc = x.astype(numpy.float32) if x.dtype == numpy.float16 else x
        log_y = xc - xc.max(axis=2, keepdims=True)
        log_y -= xp.log(xp.exp(log_y).sum(axis=2, keepdims=True))

        # The extended label sequence: blank, t_0, blank, t_1, ..., blank.
        n_valid = 2 * label_length.astype(numpy.int64) + 1
        valid = xp.arange(n_state)[None, :] < n_valid[:, None]
        path = xp.full((n_batch, n_state), self.blank_symbol, t.dtype)
        path[:, 1::2] = t
        path = xp.where(valid, path, self.blank_symbol)
        # s - 2 -> s skips a blank between two different labels.
        skip = xp.zeros((n_batch, n_state), bool)
        skip[:, 2:] = (path[:, 2:] != path[:, :-2]) & (path[:, 2:] != self.blank_symbol)
        index = xp.broadcast_to(path[None], (n_time, n_batch, n_state))
        lp = xp.take_along_axis(log_y, index, axis=2)
        running = xp.arange(n_time)[:, None] < input_length[None, :]

        # Forward variables, emission at t included; frozen once t passes
        # the input's length.
        alpha = xp.full((n_time, n_batch, n_state), neg, xc.dtype)
        a = xp.full((n_batch, n_state), neg, xc.dtype)
        a[:, :2] = lp[0, :, :2]
        a = xp.where(valid, a, neg)
        alpha[0] = a
        for i in range(1, n_time):
            a2 = _shift(a, 1, neg, xp)
            a3 = xp.where(skip, _shift(a, 2, neg, xp), neg)
            new = xp.where(valid, _logsumexp3(a, a2, a3, xp) + lp[i], neg)
            a = xp.where(running[i][:, None], new, a)
            alpha[i] = a
        last = xp.take_along_axis(a, (n_valid - 1)[:, None], axis=1)[:, 0]
        before = xp.take_along_axis(a, xp.maximum(n_valid - 2, 0)[:, None], axis=1)
        before = xp.where(n_valid >= 2, before[:, 0], neg)
        log_p = xp.logaddexp(last, before)

        # Backward variables, emission at t excluded.
        states = xp.arange(n_state)[None, :]
        end = (states == (n_valid - 1)[:, None]) | (states == (n_valid - 2)[:, None])
        init = xp.where(end, 0, neg).astype(xc.dtype)
        skip_next = _shift(skip, -2, False, xp)
        posterior = xp.empty_like(alpha)
        b = init
        posterior[n_time - 1] = alpha[n_time - 1] + b
        for i in range(n_time - 2, -1, -1):
            nb = b + lp[i + 1]
            b2 = _shift(nb, -1, neg, xp)
            b3 = xp.where(skip_next, _shift(nb, -2, neg, xp), neg)
            rec = xp.where(valid, _logsumexp3(nb, b2, b3, xp), neg)
            b = xp.where(running[i + 1][:, None], rec, init)
            posterior[i] = alpha[i] + b
        posterior = xp.exp(posterior - log_p[None, :, None]) * running[:, :, None]

        # d(-log p)/d logits = softmax - (posterior summed per unit).
        onehot = (path[:, :, None] == xp.arange(n_unit)).astype(xc.dtype)
        occupancy = xp.matmul(posterior.transpose(1, 0, 2), onehot).transpose(1, 0, 2)
        self._grad = ((xp.exp(log_y) - occupancy) * running[:, :, None]).astype(
            x.dtype, copy=False
        )
        loss = -log_p
        if self.reduce == "mean":
            loss = loss.mean()
        return (xp.asarray(loss, dtype=x.dtype),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        (x,) = self.get_retained_inputs()
        (gx,) = _CTCGrad(self._grad, self.reduce).apply((x, gy))
        return None, None, None, gx


class _CTCGrad(function_node.FunctionNode):
    """Gradient of the CTC loss, computed in forward; not differentiable again."""

    def __init__(self, grad, reduce):
        self._grad = grad
        self.reduce = reduce

    def forward(self, inputs):
        # x is an input only so that differentiating the gradient reaches
        # this node and is refused.
        _, gy = inputs
        if self.reduce == "mean":
            return (self._grad * (gy / self._grad.shape[1]),)
        return (self._grad * gy[None, :, None],)

    def backward(self, indexes, grad_outputs):
        raise RuntimeError(
            "connectionist_temporal_classification does not support double "
            "backpropagation"
        )


def _as_array(x):
    return x.array if isinstance(x, variable.Variable) else x


def connectionist_temporal_classification(
    x, t, blank_symbol, input_length=None, label_length=None, reduce="mean"
):
    """Connectionist Temporal Classification loss function.

    CTC [Graves2006]_ is a loss of sequence labelling where the alignment
    between the inputs and the target is unknown. See also [Graves2012]_.

    Args:
        x (list of ~chainer.Variable or :ref:`ndarray`): Unnormalized RNN
            outputs, one per time step: ``x[i]`` of shape ``(B, V)`` with
            ``V`` the number of units (labels and blank). The softmax is
            applied here, so do not apply it beforehand.
        t (~chainer.Variable or :ref:`ndarray`): Integer expected label
            sequences of shape ``(B, L)``, each label in ``[0, V)`` (any
            other raises ``ValueError``; those past ``label_length`` are
            padding and not checked).
        blank_symbol (int): Index of the blank symbol, in ``[0, V)``.
        input_length (~chainer.Variable or :ref:`ndarray`): Integer valid
            length of each input sequence, of shape ``(B,)``, each in
            ``[0, len(x)]`` (default: all of ``x``).
        label_length (~chainer.Variable or :ref:`ndarray`): Integer valid
            length of each label sequence, of shape ``(B,)``, each in
            ``[0, L]`` (default: all of ``t``).
        reduce (str): ``'mean'`` averages over the batch; ``'no'`` returns
            the loss of each sequence, of shape ``(B,)``.

    Returns:
        ~chainer.Variable: The loss, of ``x``'s dtype.

    .. note::
        This function is differentiable only by ``x``, and only once (double
        backpropagation raises ``RuntimeError``). Apply the softmax to the
        outputs before decoding them.

    .. [Graves2006] Alex Graves, Santiago Fernandez, Faustino Gomez, Jurgen
       Schmidhuber, `Connectionist Temporal Classification: Labelling
       Unsegmented Sequence Data with Recurrent Neural Networks
       <ftp://ftp.idsia.ch/pub/juergen/icml2006.pdf>`_
    .. [Graves2012] Alex Graves, `Supervised Sequence Labelling with
       Recurrent Neural Networks
       <https://www.cs.toronto.edu/~graves/preprint.pdf>`_
    """
    if not isinstance(x, collections.abc.Sequence) or not x:
        raise TypeError("x must be a non-empty list of Variables")
    if not isinstance(blank_symbol, int) or isinstance(blank_symbol, bool):
        raise TypeError("blank_symbol must be non-negative integer.")
    x0 = _as_array(x[0])
    if x0.ndim != 2:
        raise ValueError(
            f"each element of x must be 2-d (batch, units), got shape {x0.shape}"
        )
    if not 0 <= blank_symbol < x0.shape[1]:
        raise ValueError(
            f"blank_symbol must be in [0, {x0.shape[1]}), got {blank_symbol}"
        )
    xp = backend.get_array_module(x0)
    t = _as_array(t)
    if input_length is None:
        input_length = xp.full(len(x0), len(x), dtype=numpy.int32)
    if label_length is None:
        # A t of the wrong ndim is reported by the type check.
        n_label = t.shape[1] if t.ndim == 2 else 0
        label_length = xp.full(len(t), n_label, dtype=numpy.int32)
    func = ConnectionistTemporalClassification(blank_symbol, reduce)
    (loss,) = func.apply((input_length, label_length, t, stack.stack(x)))
    return loss
