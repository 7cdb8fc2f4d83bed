from chainer import primitive_ops
from chainer import variable
from chainer.functions import _labels
from chainer.functions.array import concat
from chainer.functions.math import exponential
from chainer.functions.math import logsumexp
from chainer.utils import type_check


def _check_inputs(x, t, W, samples):
    x, t, W, samples = (
        v.array if isinstance(v, variable.Variable) else v for v in (x, t, W, samples)
    )
    if x.dtype.kind != "f" or W.dtype != x.dtype:
        raise type_check.InvalidType(
            "x.dtype.kind == 'f' and W.dtype == x.dtype",
            f"x.dtype={x.dtype}, W.dtype={W.dtype}",
        )
    if t.dtype.kind != "i" or samples.dtype.kind != "i":
        raise type_check.InvalidType(
            "t.dtype.kind == 'i' and samples.dtype.kind == 'i'",
            f"t.dtype={t.dtype}, samples.dtype={samples.dtype}",
        )
    if not (
        x.ndim == 2
        and t.shape == x.shape[:1]
        and W.ndim == 2
        and W.shape[1] == x.shape[1]
        and samples.ndim == 2
        and samples.shape[0] == x.shape[0]
    ):
        raise type_check.InvalidType(
            "x: (B, D), t: (B,), W: (V, D), samples: (B, S)",
            f"x: {x.shape}, t: {t.shape}, W: {W.shape}, samples: {samples.shape}",
        )
    _labels.check_labels("black_out", t, len(W), None, "t", "len(W)")
    _labels.check_labels("black_out", samples, len(W), None, "samples", "len(W)")


def black_out(x, t, W, samples, reduce="mean"):
    """BlackOut loss function.

    .. math:: -\\log(p(t)) - \\sum_{s \\in S} \\log(1 - p(s)),

    where :math:`t` is the correct label, :math:`S` the set of negative
    samples and

    .. math::
        p(y) = \\frac{\\exp(W_y^\\top x)}{\\sum_{s \\in S \\cup \\{t\\}}
            \\exp(W_s^\\top x)}.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input vectors of shape
            ``(B, D)``.
        t (~chainer.Variable or :ref:`ndarray`): Integer labels of shape
            ``(B,)``, each in ``[0, V)`` (any other raises ``ValueError``).
        W (~chainer.Variable or :ref:`ndarray`): Output weight matrix of
            shape ``(V, D)`` and ``x``'s dtype.
        samples (~chainer.Variable or :ref:`ndarray`): Integer negative
            samples of shape ``(B, S)``, each in ``[0, V)``.
        reduce (str): ``'mean'`` averages over the batch; ``'no'`` returns
            the loss of each example, of shape ``(B,)``.

    Returns:
        ~chainer.Variable: The loss, of ``x``'s dtype.

    See: `BlackOut: Speeding up Recurrent Neural Network Language Models With
    Very Large Vocabularies <https://arxiv.org/abs/1511.06909>`_
    """
    if reduce not in ("mean", "no"):
        raise ValueError(
            f"only 'mean' and 'no' are valid for 'reduce', but {reduce!r} is given"
        )
    _check_inputs(x, t, W, samples)
    x = variable.as_variable(x)
    t = t.array if isinstance(t, variable.Variable) else t
    samples = samples.array if isinstance(samples, variable.Variable) else samples
    batch_size, n_in = x.shape
    neg_emb = primitive_ops.get_item(W, samples)
    x_row = primitive_ops.reshape(x, (batch_size, 1, n_in))
    neg_y = primitive_ops.sum(
        neg_emb * primitive_ops.broadcast_to(x_row, neg_emb.shape), axis=2
    )
    pos_y = primitive_ops.sum(primitive_ops.get_item(W, t) * x, axis=1)
    logits = concat.concat(
        (primitive_ops.reshape(pos_y, (batch_size, 1)), neg_y), axis=1
    )
    logz = logsumexp.logsumexp(logits, axis=1)
    blogz = primitive_ops.broadcast_to(
        primitive_ops.reshape(logz, (batch_size, 1)), neg_y.shape
    )
    ny = exponential.log(1 - exponential.exp(neg_y - blogz))
    loss = -(pos_y - logz + primitive_ops.sum(ny, axis=1))
    if reduce == "mean":
        return primitive_ops.sum(loss) * (1.0 / batch_size)
    return loss
