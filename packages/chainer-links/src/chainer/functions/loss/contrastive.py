from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class Contrastive(function_node.FunctionNode):
    """Contrastive loss of pairs labelled similar (1) or dissimilar (0)."""

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
        type_check.argname(in_types, ("x0", "x1", "y"))
        x0_type, x1_type, y_type = in_types
        type_check.expect(x0_type.dtype.kind == "f")
        type_check.expect(x0_type.dtype == x1_type.dtype)
        type_check.expect(y_type.dtype.kind == "i")
        type_check.expect(x0_type.ndim == 2)
        type_check.expect(x0_type.shape == x1_type.shape)
        type_check.expect(y_type.ndim == 1)
        type_check.expect(x1_type.shape[0] == y_type.shape[0])
        type_check.expect(x1_type.shape[0] > 0)

    def forward(self, inputs):
        self.retain_inputs((0, 1, 2))
        x0, x1, y = inputs
        xp = backend.get_array_module(x0)
        diff = x0 - x1
        dist_sq = (diff * diff).sum(axis=1)
        mdist = xp.maximum(self.margin - xp.sqrt(dist_sq), 0)
        y = y.astype(x0.dtype)
        loss = (y * dist_sq + (1 - y) * mdist * mdist) * 0.5
        if self.reduce == "mean":
            loss = loss.sum() / len(x0)
        return (xp.asarray(loss, dtype=x0.dtype),)

    def backward(self, indexes, grad_outputs):
        x0, x1, y = self.get_retained_inputs()
        (gy,) = grad_outputs
        n, k = x0.shape
        dtype = x0.dtype
        if self.reduce == "mean":
            gy = primitive_ops.broadcast_to(gy * (1.0 / n), (n, 1))
        else:
            gy = primitive_ops.reshape(gy, (n, 1))
        similar = y.array[:, None].astype(dtype)
        diff = x0 - x1
        dist = primitive_ops.sum(diff * diff, axis=1, keepdims=True) ** 0.5
        mdist = self.margin - dist
        active = (1 - similar) * (mdist.array > 0)
        # Gradient of (1 - y) max(margin - d, 0)^2 / 2 is -(margin - d) diff / d.
        # |diff / d| <= 1, so dividing first cannot overflow (float16); where
        # d is 0, diff is 0 too and d is replaced by 1, giving 0, not NaN.
        zero = dist.array <= 0
        dist = dist * ~zero + zero.astype(dtype)
        gx0 = primitive_ops.broadcast_to(gy, (n, k)) * (
            diff * similar - (diff / dist) * (mdist * active)
        )
        ret = []
        if 0 in indexes:
            ret.append(gx0)
        if 1 in indexes:
            ret.append(-gx0)
        if 2 in indexes:
            ret.append(None)
        return ret


def contrastive(x0, x1, y, margin=1, reduce="mean"):
    """Contrastive loss of pairs of vectors.

    .. math::
        L = \\frac{1}{2N} \\left( \\sum_{n=1}^N y_n d_n^2
            + (1 - y_n) \\max ({\\rm margin} - d_n, 0)^2 \\right)

    where :math:`d_n = \\| {\\bf x_0}_n - {\\bf x_1}_n \\|_2`.

    Args:
        x0 (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(N, K)``.
        x1 (~chainer.Variable or :ref:`ndarray`): Float array of the shape
            and dtype of ``x0``.
        y (~chainer.Variable or :ref:`ndarray`): Integer labels of shape
            ``(N,)``: 1 for a similar pair, 0 for a dissimilar one.
        margin (float): Positive margin of dissimilar pairs.
        reduce (str): ``'mean'`` gives the scalar above; ``'no'`` gives the
            per-pair loss of shape ``(N,)`` (without the ``1/N``).

    Returns:
        ~chainer.Variable: The loss, of ``x0``'s dtype.

    .. note::
        This cost can be used to train siamese networks. See `Learning a
        Similarity Metric Discriminatively, with Application to Face
        Verification <http://yann.lecun.com/exdb/publis/pdf/chopra-05.pdf>`_.
    """
    (loss,) = Contrastive(margin, reduce).apply((x0, x1, y))
    return loss
