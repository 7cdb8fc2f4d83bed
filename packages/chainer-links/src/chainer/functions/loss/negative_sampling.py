from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions import _labels
from chainer.functions.activation import sigmoid
from chainer.functions.array import scatter_add
from chainer.utils import type_check


class NegativeSamplingFunction(function_node.FunctionNode):
    """Negative sampling loss; ``samples`` holds the drawn (B, 1 + k) indices."""

    ignore_label = -1
    samples = None

    def __init__(self, sampler, sample_size, reduce="sum"):
        if reduce not in ("sum", "no"):
            raise ValueError(
                f"only 'sum' and 'no' are valid for 'reduce', but {reduce!r} is given"
            )
        self.sampler = sampler
        self.sample_size = sample_size
        self.reduce = reduce

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 3)
        type_check.argname(in_types, ("x", "t", "W"))
        x_type, t_type, w_type = in_types
        type_check.expect(x_type.dtype.kind == "f")
        type_check.expect(x_type.ndim == 2)
        type_check.expect(t_type.dtype.kind == "i")
        type_check.expect(t_type.ndim == 1)
        type_check.expect(x_type.shape[0] == t_type.shape[0])
        type_check.expect(w_type.dtype == x_type.dtype)
        type_check.expect(w_type.ndim == 2)
        type_check.expect(w_type.shape[1] == x_type.shape[1])

    def _make_samples(self, xp, t):
        # Column 0 is the positive example, the others are negative samples.
        samples = xp.array(self.sampler((len(t), self.sample_size + 1)))
        samples[:, 0] = t
        return samples

    def forward(self, inputs):
        self.retain_inputs((0, 2))
        x, t, W = inputs
        xp = backend.get_array_module(x)
        _labels.check_labels(
            "negative_sampling", t, len(W), self.ignore_label, "t", "len(W)"
        )
        self.ignore_mask = t != self.ignore_label
        self.samples = self._make_samples(xp, t)
        wx = _scores(W[self.samples], x)
        wx[:, 0] *= -1
        # -log sigmoid(-s) = log(1 + exp(s)), summed over the 1 + k samples.
        loss = xp.logaddexp(wx, 0).sum(axis=1) * self.ignore_mask
        if self.reduce == "sum":
            loss = loss.sum()
        return (xp.asarray(loss, dtype=x.dtype),)

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        xp = backend.get_array_module(x.array)
        samples = self.samples
        n, k = samples.shape
        w = primitive_ops.get_item(W, samples)
        wx = primitive_ops.sum(
            w
            * primitive_ops.broadcast_to(primitive_ops.reshape(x, (n, 1, -1)), w.shape),
            2,
        )
        sign = xp.ones(k, x.dtype)
        sign[0] = -1
        # d/ds log(1 + exp(sign * s)) = sign * sigmoid(sign * s).
        coeff = sigmoid.sigmoid(wx * sign) * sign
        scale = self.ignore_mask.astype(x.dtype)
        if self.reduce == "sum":
            g = coeff * (gy * scale[:, None])
        else:
            g = coeff * (gy * scale)[:, None]
        g = primitive_ops.reshape(g, (n, k, 1))
        ret = []
        if 0 in indexes:
            ret.append(
                primitive_ops.sum(primitive_ops.broadcast_to(g, w.shape) * w, axis=1)
            )
        if 1 in indexes:
            ret.append(None)
        if 2 in indexes:
            gw = primitive_ops.broadcast_to(g, w.shape) * primitive_ops.broadcast_to(
                primitive_ops.reshape(x, (n, 1, -1)), w.shape
            )
            zeros = xp.zeros(W.shape, W.dtype)
            ret.append(scatter_add.scatter_add(zeros, samples, gw))
        return ret


def _scores(w, x):
    # (B, K, D) and (B, D) -> (B, K) of dot products.
    return (w @ x[:, :, None])[:, :, 0]


def negative_sampling(x, t, W, sampler, sample_size, reduce="sum", **kwargs):
    """Negative sampling loss function.

    .. math::
        f(x, p) = -\\log \\sigma(x^\\top w_p)
            - \\sum_{n \\in N} \\log \\sigma(-x^\\top w_n),

    where :math:`\\sigma` is the sigmoid, :math:`w_i` the weight vector of
    word :math:`i`, :math:`p` the positive example and :math:`N` the
    ``sample_size`` negative examples drawn by ``sampler``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input vectors of shape
            ``(B, D)``.
        t (~chainer.Variable or :ref:`ndarray`): Integer labels of shape
            ``(B,)``, each in ``[0, V)``; ``-1`` marks an example to ignore
            (any other value raises ``ValueError``).
        W (~chainer.Variable or :ref:`ndarray`): Weight matrix of shape
            ``(V, D)`` and ``x``'s dtype.
        sampler (callable): Takes a shape and returns an integer array of that
            shape whose elements are samples from the word distribution; a
            :class:`~chainer.utils.WalkerAlias` built on the power
            distribution of word frequencies is recommended.
        sample_size (int): Number of negative samples per example.
        reduce (str): ``'sum'`` returns the summed loss; ``'no'`` the loss of
            each example, of shape ``(B,)``.
        return_samples (bool): Keyword only. If ``True``, also return the
            samples used, an integer array of shape ``(B, sample_size + 1)``
            whose first column is ``t``.

    Returns:
        ~chainer.Variable or tuple: The loss (of ``x``'s dtype), or
        ``(loss, samples)`` with ``return_samples=True``.

    See: `Distributed Representations of Words and Phrases and their
    Compositionality <https://arxiv.org/abs/1310.4546>`_
    """
    return_samples = kwargs.pop("return_samples", False)
    if kwargs:
        names = ", ".join(sorted(kwargs))
        raise TypeError(
            f"negative_sampling() got unexpected keyword argument(s) {names}"
        )
    func = NegativeSamplingFunction(sampler, sample_size, reduce)
    (loss,) = func.apply((x, t, W))
    if return_samples:
        return loss, func.samples
    return loss
