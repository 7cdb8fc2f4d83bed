from chainer import backend
from chainer import primitive_ops
from chainer import variable
from chainer.functions.activation import relu
from chainer.utils import type_check


def _l1_norm(x, axis):
    return primitive_ops.sum(primitive_ops.absolute(x), axis=axis)


def _l2_norm(x, axis):
    s = primitive_ops.sum(x * x, axis=axis)
    # sqrt has no derivative at 0; there the gradient is taken as 0 rather
    # than the NaN of 0 / 0 (masked-out pixels and absent instances hit it).
    zero = (s.array == 0).astype(s.dtype)
    return (s + zero) ** 0.5 * (1 - zero)


class DiscriminativeMarginBasedClusteringLoss:
    """Discriminative margin-based clustering loss (instance segmentation).

    Args:
        delta_v (float): Margin of the variance term: pixels closer than this
            to their instance's mean embedding are not pulled further.
        delta_d (float): Margin of the distance term: means farther apart
            than ``2 * delta_d`` are not pushed further.
        max_embedding_dim (int): Number of instance labels (``1`` to
            ``max_embedding_dim``), which is also the embedding dimension.
        norm (int): 1 for the L1 norm, 2 for the L2 norm.
        alpha (float): Weight of the variance term.
        beta (float): Weight of the distance term.
        gamma (float): Weight of the regularization term.
    """

    def __init__(
        self,
        delta_v,
        delta_d,
        max_embedding_dim,
        norm=1,
        alpha=1.0,
        beta=1.0,
        gamma=0.001,
    ):
        if max_embedding_dim <= 0:
            raise ValueError("Max number of embeddings has to be positive!")
        if norm == 1:
            self.norm = _l1_norm
        elif norm == 2:
            self.norm = _l2_norm
        else:
            raise ValueError(
                "For discriminative loss, norm can only be 1 or 2. "
                f"Obtained the value : {norm}"
            )
        self.delta_v = delta_v
        self.delta_d = delta_d
        self.max_embedding_dim = max_embedding_dim
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma

    def _check(self, embeddings, labels):
        emb = (
            embeddings.array
            if isinstance(embeddings, variable.Variable)
            else embeddings
        )
        if emb.dtype.kind != "f" or emb.ndim != 4:
            raise type_check.InvalidType(
                "embeddings: float array of shape (B, C, H, W)",
                f"embeddings: {emb.dtype} array of shape {emb.shape}",
            )
        if emb.shape[1] != self.max_embedding_dim:
            raise type_check.InvalidType(
                f"embeddings.shape[1] == max_embedding_dim ({self.max_embedding_dim})",
                f"embeddings.shape[1] == {emb.shape[1]}",
            )
        if (
            labels.dtype.kind not in "iu"
            or labels.shape != emb.shape[:1] + emb.shape[2:]
        ):
            raise type_check.InvalidType(
                "labels: int array of shape (B, H, W)",
                f"labels: {labels.dtype} array of shape {labels.shape}",
            )

    def __call__(self, embeddings, labels):
        """Computes the loss.

        Args:
            embeddings (~chainer.Variable or :ref:`ndarray`): Float predicted
                embeddings of shape ``(B, C, H, W)`` with
                ``C == max_embedding_dim``.
            labels (:ref:`ndarray`): Integer instance labels of shape
                ``(B, H, W)``: 0 for background, ``1`` to
                ``max_embedding_dim`` for the instances.

        Returns:
            tuple of ~chainer.Variable: ``(loss, l_var, l_dist, l_reg)``, the
            weighted total and the variance, distance and regularization
            terms, all scalars.
        """
        if isinstance(labels, variable.Variable):
            labels = labels.array
        self._check(embeddings, labels)
        emb = variable.as_variable(embeddings)
        xp = backend.get_array_module(emb.array)
        dtype = emb.dtype
        n_inst = self.max_embedding_dim
        n_batch, n_dim = emb.shape[:2]
        ids = xp.arange(1, n_inst + 1).reshape(n_inst, 1, 1, 1, 1)
        # masks[c, b, 0, h, w]: pixel (h, w) of image b belongs to instance c.
        masks = (labels[None, :, None] == ids).astype(dtype)
        shape = (n_inst, *emb.shape)
        emb_b = primitive_ops.broadcast_to(
            primitive_ops.reshape(emb, (1, *emb.shape)), shape
        )
        counts = xp.maximum(masks.sum(axis=(2, 3, 4)), 1)
        # Mean embedding of each instance in each image: (C_inst, B, C).
        means = primitive_ops.sum(emb_b * masks, axis=(3, 4)) / counts[:, :, None]

        # Regularization: keep the means near the origin.
        l_reg = primitive_ops.sum(self.norm(means, 2)) * (1.0 / (n_inst * n_batch))

        # Variance: pull pixels within delta_v of their instance's mean.
        means_b = primitive_ops.broadcast_to(
            primitive_ops.reshape(means, (n_inst, n_batch, n_dim, 1, 1)), shape
        )
        dist = self.norm((means_b - emb_b) * masks, 2)
        l_var = relu.relu(dist - self.delta_v) ** 2
        l_var = primitive_ops.sum(l_var, axis=(1, 2, 3))
        l_var = l_var / xp.maximum(masks.sum(axis=(1, 2, 3, 4)), 1)
        l_var = primitive_ops.sum(l_var) * (1.0 / n_inst)

        # Distance: push the means of different instances 2 * delta_d apart.
        first, second = (xp.asarray(i) for i in _pairs(n_inst))
        if len(first):
            diff = primitive_ops.get_item(means, first) - primitive_ops.get_item(
                means, second
            )
            l_dist = relu.relu(2 * self.delta_d - self.norm(diff, 2)) ** 2
            l_dist = primitive_ops.sum(l_dist) * (1.0 / (len(first) * n_batch))
        else:
            l_dist = variable.Variable(xp.zeros((), dtype))

        loss = self.alpha * l_var + self.beta * l_dist + self.gamma * l_reg
        return loss, l_var, l_dist, l_reg


def _pairs(n):
    first = [a for a in range(n) for _ in range(a + 1, n)]
    second = [b for a in range(n) for b in range(a + 1, n)]
    return first, second


def discriminative_margin_based_clustering_loss(
    embeddings,
    labels,
    delta_v,
    delta_d,
    max_embedding_dim,
    norm=1,
    alpha=1.0,
    beta=1.0,
    gamma=0.001,
):
    """Discriminative margin-based clustering loss function.

    The loss of `Semantic Instance Segmentation with a Discriminative Loss
    Function <https://arxiv.org/abs/1708.02551>`_: with :math:`\\mu_c` the
    mean embedding of instance :math:`c` (of :math:`N_c` pixels
    :math:`x_i`), :math:`C` the number of instances and
    :math:`[x]_+ = \\max(x, 0)`,

    .. math::
        L_{var} &= \\frac{1}{C} \\sum_c \\frac{1}{N_c} \\sum_i
            [\\| \\mu_c - x_i \\| - \\delta_v]_+^2 \\\\
        L_{dist} &= \\frac{1}{C (C - 1) / 2} \\sum_{c_A < c_B}
            [2 \\delta_d - \\| \\mu_{c_A} - \\mu_{c_B} \\|]_+^2 \\\\
        L_{reg} &= \\frac{1}{C} \\sum_c \\| \\mu_c \\| \\\\
        L &= \\alpha L_{var} + \\beta L_{dist} + \\gamma L_{reg}

    The means are taken per image; :math:`L_{dist}` and :math:`L_{reg}` are
    also averaged over the images and :math:`N_c` counts instance
    :math:`c`'s pixels in the whole batch. All ``max_embedding_dim`` labels
    are counted as instances, present or not.

    Args:
        embeddings (~chainer.Variable or :ref:`ndarray`): Float predicted
            embeddings of shape ``(B, C, H, W)`` with
            ``C == max_embedding_dim``.
        labels (:ref:`ndarray`): Integer instance labels of shape
            ``(B, H, W)``: 0 for background, ``1`` to ``max_embedding_dim``
            for the instances.
        delta_v (float): Margin of the variance term.
        delta_d (float): Margin of the distance term.
        max_embedding_dim (int): Number of instance labels, also the
            embedding dimension.
        norm (int): 1 (L1) or 2 (L2) for the distances.
        alpha (float): Weight of the variance term.
        beta (float): Weight of the distance term.
        gamma (float): Weight of the regularization term.

    Returns:
        tuple of ~chainer.Variable: ``(loss, l_var, l_dist, l_reg)``, the
        weighted total and its three terms, all scalars of ``embeddings``'s
        dtype.
    """
    loss = DiscriminativeMarginBasedClusteringLoss(
        delta_v, delta_d, max_embedding_dim, norm, alpha, beta, gamma
    )
    return loss(embeddings, labels)
