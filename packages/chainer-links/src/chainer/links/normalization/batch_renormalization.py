import chainer
from chainer import utils
from chainer.functions.normalization import batch_normalization
from chainer.functions.normalization import batch_renormalization
from chainer.links.normalization import batch_normalization as bn_link


class BatchRenormalization(bn_link.BatchNormalization):
    """Batch renormalization layer on outputs of linear or convolution functions.

    This link wraps the :func:`~chainer.functions.batch_renormalization` and
    :func:`~chainer.functions.fixed_batch_normalization` functions. It
    behaves like :class:`~chainer.links.BatchNormalization` (training,
    fine-tuning and testing modes, the same persistent statistics), but in
    training mode the batch statistics are corrected towards the population
    statistics by the factors ``r`` (clipped to ``[1 / rmax, rmax]``) and
    ``d`` (clipped to ``[-dmax, dmax]``), and the statistics are updated
    after the correction is computed.

    See: `Batch Renormalization: Towards Reducing Minibatch Dependence in
    Batch-Normalized Models <https://arxiv.org/abs/1702.03275>`_

    Args:
        size (int or tuple of ints): Size (or shape) of channel dimensions.
        rmax (float): Upper bound of the factor ``r``.
        dmax (float): Bound of the absolute value of the shift ``d``.
        decay (float): Decay rate of moving average. It is used on training.
        eps (float): Epsilon value for numerical stability.
        dtype (numpy.dtype): Type to use in computing.
        use_gamma (bool): If ``True``, use scaling parameter.
        use_beta (bool): If ``True``, use shifting parameter.
        initial_gamma: Initializer of the scaling parameter (default 1).
        initial_beta: Initializer of the shifting parameter (default 0).
        initial_avg_mean: Initializer of the population mean (default 0).
        initial_avg_var: Initializer of the population variance (default 1).

    .. seealso::
       :func:`~chainer.functions.batch_renormalization`,
       :class:`~chainer.links.BatchNormalization`
    """

    # Statistics before the last update, kept for F.forget's recomputation.
    _prev_avg_mean = None
    _prev_avg_var = None

    def __init__(
        self,
        size,
        rmax=1,
        dmax=0,
        decay=0.9,
        eps=2e-05,
        dtype=None,
        use_gamma=True,
        use_beta=True,
        initial_gamma=None,
        initial_beta=None,
        initial_avg_mean=None,
        initial_avg_var=None,
    ):
        super().__init__(
            size,
            decay,
            eps,
            dtype,
            use_gamma,
            use_beta,
            initial_gamma,
            initial_beta,
            initial_avg_mean=initial_avg_mean,
            initial_avg_var=initial_avg_var,
        )
        self.rmax = rmax
        self.dmax = dmax

    def forward(self, x, finetune=False):
        """Invokes the forward propagation of BatchRenormalization.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input variable.
            finetune (bool): In training mode, accumulate the population
                statistics as a cumulative average (see
                :class:`~chainer.links.BatchNormalization`).

        Returns:
            ~chainer.Variable: Output, same shape and dtype as ``x``.
        """
        gamma, beta = self.gamma, self.beta
        xp, shape, dtype = self.xp, self.avg_mean.shape, self.avg_mean.dtype
        if gamma is None:
            with chainer.using_device(self.device):
                gamma = xp.ones(shape, dtype)
        if beta is None:
            with chainer.using_device(self.device):
                beta = xp.zeros(shape, dtype)
        if not utils._config_entry("train"):
            return batch_normalization.fixed_batch_normalization(
                x, gamma, beta, self.avg_mean, self.avg_var, self.eps
            )
        if finetune:
            self.N += 1
            decay = 1.0 - 1.0 / self.N
        else:
            decay = self.decay
        avg_mean, avg_var = self.avg_mean, self.avg_var
        update = True
        if utils._config_entry("in_recomputing"):
            # Extra forward computations (F.forget's backward) must neither
            # update the statistics nor see them updated: r and d depend on
            # them, so the first call's values are used again.
            if finetune:
                self.N -= 1
            update = False
            if self._prev_avg_mean is not None:
                avg_mean, avg_var = self._prev_avg_mean, self._prev_avg_var
        elif getattr(chainer.config, "_will_recompute", False):
            self._prev_avg_mean = avg_mean.copy()
            self._prev_avg_var = avg_var.copy()
        return batch_renormalization.batch_renormalization(
            x,
            gamma,
            beta,
            self.rmax,
            self.dmax,
            self.eps,
            avg_mean,
            avg_var,
            decay,
            update_statistics=update,
        )
