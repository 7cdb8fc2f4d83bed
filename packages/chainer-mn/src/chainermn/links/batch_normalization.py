"""Batch normalization over the batches of all processes."""

from __future__ import annotations

import copy
import numbers

import numpy

import chainer
from chainer import configuration
from chainer import functions
from chainer import initializers
from chainer import link
from chainer import variable
from chainermn.functions import _util
from chainermn.functions import batch_normalization
from chainermn.links import _sharing


def _initializer(value, default, dtype):
    # An initializer of ``value`` (None: ``default``) producing ``dtype``.
    if value is None:
        value = default
    if isinstance(value, (numbers.Number, numpy.generic)):
        return initializers.Constant(value, dtype=dtype)
    if callable(value):
        init = copy.copy(value)
        init.dtype = dtype
        return init
    return initializers.Constant(value, dtype=dtype)


class MultiNodeBatchNormalization(_sharing.SharesCommunicator, link.Link):
    """Batch normalization with the statistics of the whole global batch.

    :class:`chainer.links.BatchNormalization` normalizes each process's batch
    by that batch's own mean and variance, which are unreliable when the
    per-process batches are small. This link computes them over the
    batches of all the processes of ``comm`` together, as if they were one
    batch (the processes' batches may differ in size): in training mode,
    every process must call it, in the same order. The running statistics
    are updated with the global ones, so they stay the same on every
    process, and the gradient of the input accounts for every process's
    samples. The gradients of ``gamma`` and ``beta`` are this process's own
    contributions; averaged over the processes by
    :func:`~chainermn.create_multi_node_optimizer`, they equal the gradients
    of one process's batch normalization on the whole batch (for a loss
    that is a mean over the samples).

    In testing mode (``chainer.config.train`` is False) the running
    statistics are used and nothing is communicated, as in
    :class:`~chainer.links.BatchNormalization`; so is fine-tuning
    (``finetune=True``, see :meth:`start_finetuning`).

    Use :func:`~chainermn.links.create_mnbn_model` to replace the batch
    normalizations of an existing model.

    Args:
        size (int or tuple of ints): Size (or shape) of the channel
            dimensions: the axes ``1 .. len(size)`` of the input.
        comm (~chainermn.communicators.CommunicatorBase): Communicator whose
            processes share the statistics.
        decay (float): Decay rate of the running averages.
        eps (float): Epsilon added to the variance.
        dtype (numpy.dtype): Dtype of the parameters and statistics
            (default: ``chainer.config.dtype``; mixed16 keeps them in
            float32).
        use_gamma (bool): If ``False``, no scaling parameter (unit scale).
        use_beta (bool): If ``False``, no shifting parameter (zero shift).
        initial_gamma: Initializer, scalar or array of ``gamma`` (default 1).
        initial_beta: Initializer, scalar or array of ``beta`` (default 0).
        communication_backend (str): ``'mpi'``, ``'nccl'`` (needs the
            ``'pure_nccl'`` or ``'single_node'`` communicator; otherwise
            ``ValueError``), or ``'auto'`` for the best one of the
            communicator (NCCL where it has it, else MPI).

    Attributes:
        gamma (~chainer.Parameter): Scaling parameter (None without
            ``use_gamma``).
        beta (~chainer.Parameter): Shifting parameter (None without
            ``use_beta``).
        avg_mean (:ref:`ndarray`): Running mean (persistent), zeros at first.
        avg_var (:ref:`ndarray`): Running unbiased variance (persistent),
            ones at first.
        N (int): Number of batches seen while fine-tuning (persistent).
        decay (float): Decay rate of the running averages.
        eps (float): Epsilon added to the variance.
        comm: The communicator.
    """

    gamma = None
    beta = None

    def __init__(
        self,
        size,
        comm,
        decay=0.9,
        eps=2e-05,
        dtype=None,
        use_gamma=True,
        use_beta=True,
        initial_gamma=None,
        initial_beta=None,
        communication_backend="auto",
    ):
        super().__init__()
        shape = (size,) if isinstance(size, numbers.Integral) else tuple(size)
        self.comm = comm
        self.decay = decay
        self.eps = eps
        self._communication_backend = _util.check_communication_backend(
            comm, communication_backend
        )
        self._highprec_dtype = chainer.get_dtype(dtype, map_mixed16=numpy.float32)
        self._checked_across_processes = False
        dtype = self._highprec_dtype
        self.add_persistent("avg_mean", numpy.zeros(shape, dtype))
        self.add_persistent("avg_var", numpy.ones(shape, dtype))
        self.add_persistent("N", 0)
        with self.init_scope():
            if use_gamma:
                self.gamma = variable.Parameter(
                    _initializer(initial_gamma, 1, dtype), shape
                )
            if use_beta:
                self.beta = variable.Parameter(
                    _initializer(initial_beta, 0, dtype), shape
                )

    @property
    def printable_specs(self):
        """``(name, value)`` pairs shown in the repr."""
        yield from (("size", self.avg_mean.shape), ("decay", self.decay))
        yield from (("eps", self.eps), ("dtype", self._highprec_dtype))

    def forward(self, x, finetune=False):
        """Normalizes ``x`` by the statistics of all processes' batches.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input of shape
                ``(n, *size, ...)``; ``n`` may differ between processes.
            finetune (bool): In training mode, accumulate the population
                statistics (the ``N``-th call averages with decay
                ``1 - 1 / N``) instead of a decaying average.

        Returns:
            ~chainer.Variable: Output of the shape and dtype of ``x``.
        """
        shape, dtype = self.avg_mean.shape, self._highprec_dtype
        gamma, beta = self.gamma, self.beta
        if gamma is None:
            with chainer.using_device(self.device):
                gamma = self.xp.ones(shape, dtype)
        if beta is None:
            with chainer.using_device(self.device):
                beta = self.xp.zeros(shape, dtype)
        if not configuration.config.train:
            return functions.fixed_batch_normalization(
                x, gamma, beta, self.avg_mean, self.avg_var, self.eps
            )
        if not self._checked_across_processes:
            self._check_across_processes()
        if finetune:
            self.N += 1
            decay = 1.0 - 1.0 / self.N
        else:
            decay = self.decay
        avg_mean, avg_var = self.avg_mean, self.avg_var
        if getattr(configuration.config, "in_recomputing", False):
            # Extra forward computations must not update the statistics.
            if finetune:
                self.N -= 1
            avg_mean = avg_var = None
        func = batch_normalization.MultiNodeBatchNormalizationFunction(
            self.comm,
            self.eps,
            avg_mean,
            avg_var,
            decay,
            communication_backend=self._communication_backend,
        )
        (y,) = func.apply((x, gamma, beta))
        return y

    def _check_across_processes(self):
        # Different channel shapes would make the allreduces of the
        # statistics mismatch; say so instead (once, collectively).
        shapes = self.comm.allgather_obj(self.avg_mean.shape)
        if any(s != shapes[0] for s in shapes):
            listing = ", ".join(f"rank {r}: {s}" for r, s in enumerate(shapes))
            raise ValueError(
                "MultiNodeBatchNormalization: the processes have different "
                f"channel shapes ({listing}); every process must build the "
                "link with the same size"
            )
        self._checked_across_processes = True

    def start_finetuning(self):
        """Resets the count of batches of the fine-tuning mode.

        Call it before fine-tuning again; the first fine-tuning does not
        need it.
        """
        self.N = 0
