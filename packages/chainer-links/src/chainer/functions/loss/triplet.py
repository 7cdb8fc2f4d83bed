from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class Triplet(function_node.FunctionNode):
    """Triplet loss of (anchor, positive, negative) examples."""

    def __init__(self, margin, reduce="mean"):
        if margin <= 0:
            raise ValueError("margin should be positive value.")
        if reduce not in ("mean", "no"):
            raise ValueError(
                f"only 'mean' and 'no' are valid for 'reduce', but {reduce!r} is given"
            )
        self.margin = margin
        self.reduce = reduce

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 3)
        type_check.argname(in_types, ("anchor", "positive", "negative"))
        a_type, p_type, n_type = in_types
        type_check.expect(a_type.dtype.kind == "f")
        type_check.expect(a_type.dtype == p_type.dtype)
        type_check.expect(a_type.dtype == n_type.dtype)
        type_check.expect(a_type.ndim >= 2)
        type_check.expect(a_type.shape == p_type.shape)
        type_check.expect(a_type.shape == n_type.shape)
        type_check.expect(a_type.shape[0] > 0)

    def forward(self, inputs):
        self.retain_inputs((0, 1, 2))
        anchor, positive, negative = inputs
        xp = backend.get_array_module(anchor)
        dp = anchor - positive
        dn = anchor - negative
        dist = (dp * dp - dn * dn).sum(axis=1) + self.margin
        self._active = dist > 0
        loss = xp.maximum(dist, 0)
        if self.reduce == "mean":
            loss = loss.sum() / len(anchor)
        return (xp.asarray(loss, dtype=anchor.dtype),)

    def backward(self, indexes, grad_outputs):
        anchor, positive, negative = self.get_retained_inputs()
        (gy,) = grad_outputs
        shape = anchor.shape
        # Per-example coefficient, kept with a length-one axis 1 to broadcast.
        kept = (shape[0], 1, *shape[2:])
        active = self._active.reshape(kept).astype(anchor.dtype)
        gy = (
            gy * (1.0 / shape[0])
            if self.reduce == "mean"
            else primitive_ops.reshape(gy, kept)
        )
        g = primitive_ops.broadcast_to(gy * active, shape) * 2
        ret = []
        if 0 in indexes:
            ret.append(g * (negative - positive))
        if 1 in indexes:
            ret.append(g * (positive - anchor))
        if 2 in indexes:
            ret.append(g * (anchor - negative))
        return ret


def triplet(anchor, positive, negative, margin=0.2, reduce="mean"):
    """Triplet loss.

    .. math::
        L(a, p, n) = \\frac{1}{N} \\left( \\sum_{i=1}^N \\max \\{d(a_i, p_i)
            - d(a_i, n_i) + {\\rm margin}, 0\\} \\right)

    where :math:`d(x_i, y_i) = \\| {\\bf x}_i - {\\bf y}_i \\|_2^2`.

    Args:
        anchor (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(N, K)``; the distance sums over axis 1.
        positive (~chainer.Variable or :ref:`ndarray`): Examples similar to
            the anchors; same shape and dtype.
        negative (~chainer.Variable or :ref:`ndarray`): Examples dissimilar
            to the anchors; same shape and dtype.
        margin (float): Positive margin.
        reduce (str): ``'mean'`` gives the scalar above; ``'no'`` gives the
            per-example loss of shape ``(N,)``.

    Returns:
        ~chainer.Variable: The loss, of ``anchor``'s dtype.

    .. seealso:: `FaceNet: A Unified Embedding for Face Recognition and
        Clustering <https://arxiv.org/abs/1503.03832>`_
    """
    (loss,) = Triplet(margin, reduce).apply((anchor, positive, negative))
    return loss
