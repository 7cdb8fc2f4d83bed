"""The multi-node optimizer: averaged gradients before every update."""

from __future__ import annotations


def create_multi_node_optimizer(
    actual_optimizer, communicator, double_buffering=False, zero_fill=True
):
    """Wraps an optimizer so that its updates average gradients over processes.

    The returned optimizer behaves like ``actual_optimizer`` (``setup``,
    ``lr``, ``add_hook``, ``serialize``, ``t``... pass through to it), but
    its :meth:`update` runs ``communicator.multi_node_mean_grad`` between the
    backward pass and the actual update, so that every process applies the
    same averaged gradient and the models stay identical.

    The first update after :meth:`setup`, and any update after the set of
    initialized parameters changed (lazy initialization), broadcasts rank 0's
    parameters instead (``communicator.bcast_data``) and skips the actual
    update: the gradients of that step were computed from parameters that
    differed between processes. This is ChainerMN's behaviour.

    With ``double_buffering=True``, the averaging of step *t*'s gradients
    runs in the background (CPU communicators: a thread with its own MPI
    communicator; ``'pure_nccl'`` and ``'single_node'``: a CUDA stream with
    its own NCCL communicator) while step *t + 1* computes its forward and
    backward passes, and the update at step *t + 1* applies step *t*'s
    averaged gradients: updates use gradients one step stale, the first two
    calls do not update (broadcast, then the first exchange), and the
    communication overlaps the computation. ChainerMN offers it with its
    ``pure_nccl`` communicator only; here the CPU communicators have it too,
    and the other GPU communicators raise ``ValueError``. Call
    ``optimizer.wait()`` to wait for the exchange in flight.

    Example:
        >>> import chainer, chainermn
        >>> comm = chainermn.create_communicator('flat')
        >>> model = chainer.Link()
        >>> with model.init_scope():
        ...     model.w = chainer.Parameter(1.0, (2,))
        >>> opt = chainermn.create_multi_node_optimizer(
        ...     chainer.optimizers.SGD(lr=0.1), comm)
        >>> opt = opt.setup(model)
        >>> opt.lr
        0.1

    Args:
        actual_optimizer (~chainer.Optimizer): The optimizer doing the
            update.
        communicator (~chainermn.communicators.CommunicatorBase): The
            communicator averaging the gradients.
        double_buffering (bool): Overlap the averaging of a step's gradients
            with the next step's computation (one-step-stale updates).
        zero_fill (bool): Treat the ``None`` gradient of an initialized,
            unused parameter as zeros (see
            :meth:`~chainermn.communicators.CommunicatorBase.multi_node_mean_grad`).

    Returns:
        The multi-node optimizer wrapping ``actual_optimizer``.
    """
    if double_buffering:
        if not hasattr(communicator, "multi_node_mean_grad_async"):
            raise ValueError(
                f"double_buffering needs a communicator that averages in the "
                f"background; {type(communicator).__name__} cannot (use one made "
                "by chainermn.create_communicator)"
            )
        reason = getattr(communicator, "_double_buffering_error", None)
        if reason is not None:
            raise ValueError(
                f"{reason}, not {type(communicator).__name__}; use "
                "double_buffering=False or create_communicator('pure_nccl')"
            )
        return _DoubleBufferingOptimizer(actual_optimizer, communicator, zero_fill)
    return _MultiNodeOptimizer(actual_optimizer, communicator, zero_fill)


def _param_state(target):
    # The names of the parameters and whether each is initialized: a change
    # means new parameters to broadcast.
    return [
        (name, param.array is not None)
        for name, param in sorted(target.namedparams(), key=lambda x: x[0])
    ]


class _MultiNodeOptimizer:
    def __init__(self, actual_optimizer, communicator, zero_fill):
        object.__setattr__(self, "communicator", communicator)
        object.__setattr__(self, "actual_optimizer", actual_optimizer)
        object.__setattr__(self, "target_params", [])
        object.__setattr__(self, "zero_fill", zero_fill)

    def update(self, lossfun=None, *args, **kwds):
        """Averages the gradients over processes and updates the parameters.

        With ``lossfun``, it computes the loss, clears the gradients and runs
        the backward pass first (as :meth:`chainer.Optimizer.update`).

        Args:
            lossfun (callable): Loss function returning a Variable, or None
                if the gradients are already computed.
            *args, **kwds: Arguments of ``lossfun``.
        """
        target = self._backward(lossfun, args, kwds)
        if self._is_changed(target):
            self.communicator.bcast_data(target)
            return
        self.communicator.multi_node_mean_grad(target, self.zero_fill)
        self.actual_optimizer.update(None, *args, **kwds)

    def _backward(self, lossfun, args, kwds):
        actual = self.actual_optimizer
        target = actual.target
        if target is None:
            raise RuntimeError("call `setup` method before `update` method")
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if getattr(actual, "_use_cleargrads", True):
                target.cleargrads()
            else:
                target.zerograds()
            # NOTE: Chainer's optimizers keep the current loss scale in this
            # attribute only (ChainerMN reads it the same way).
            loss.backward(loss_scale=getattr(actual, "_loss_scale", None))
            del loss
        return target

    def _is_changed(self, target):
        previous = self.target_params
        current = _param_state(target)
        object.__setattr__(self, "target_params", current)
        return current != previous

    def mark_synchronized(self):
        """Records that the processes' parameters are already identical.

        The next :meth:`update` then updates instead of broadcasting rank 0's
        parameters. Call it after every process loaded the same snapshot
        (the multi-node checkpointer's ``maybe_load`` does when given the
        optimizer), so that a resumed run takes the same steps as an
        uninterrupted one.
        """
        current = _param_state(self.actual_optimizer.target)
        object.__setattr__(self, "target_params", current)

    def setup(self, link):
        """Sets up the actual optimizer for ``link``.

        Args:
            link (~chainer.Link): Target link.

        Returns:
            The multi-node optimizer itself.
        """
        self.actual_optimizer.setup(link)
        object.__setattr__(self, "target_params", [])
        return self

    def __getattr__(self, name):
        # Only reached for names this wrapper lacks. The guard keeps copy and
        # pickle (which look attributes up before __init__ ran) from
        # recursing.
        if name == "actual_optimizer":
            raise AttributeError(name)
        return getattr(self.actual_optimizer, name)

    def __setattr__(self, name, value):
        setattr(self.actual_optimizer, name, value)


class _GradBuffers:
    # A second set of gradient arrays, one per parameter of the target, in
    # the shape of a link (namedparams) so that communicators can average it.

    def __init__(self, target):
        self._slots = [
            (name, _GradSlot(param))
            for name, param in sorted(target.namedparams(), key=lambda x: x[0])
        ]

    def namedparams(self, include_uninit=True):
        for name, slot in self._slots:
            if include_uninit or slot.array is not None:
                yield name, slot

    def swap(self, target):
        params = sorted(target.namedparams(), key=lambda x: x[0])
        for (_, param), (_, slot) in zip(params, self._slots, strict=True):
            param.grad, slot.grad = slot.grad, param.grad


class _GradSlot:
    __slots__ = ("array", "grad")

    def __init__(self, param):
        self.array = param.array
        self.grad = None


class _DoubleBufferingOptimizer(_MultiNodeOptimizer):
    def __init__(self, actual_optimizer, communicator, zero_fill):
        super().__init__(actual_optimizer, communicator, zero_fill)
        object.__setattr__(self, "communicated_grads", None)
        object.__setattr__(self, "needs_update", False)
        object.__setattr__(self, "pending", None)

    def update(self, lossfun=None, *args, **kwds):
        """Updates with the previous step's averaged gradients.

        It computes this step's gradients (with ``lossfun``), waits for the
        averaging of the previous step's gradients, swaps the two sets,
        starts averaging this step's gradients in the background and updates
        the parameters with the previous step's averages.

        Args:
            lossfun (callable): Loss function returning a Variable, or None
                if the gradients are already computed.
            *args, **kwds: Arguments of ``lossfun``.
        """
        target = self._backward(lossfun, args, kwds)
        if self._is_changed(target):
            self.wait()
            self.communicator.bcast_data(target)
            object.__setattr__(self, "communicated_grads", _GradBuffers(target))
            object.__setattr__(self, "needs_update", False)
            return
        self.wait()
        buffers = self.communicated_grads
        buffers.swap(target)
        pending = self.communicator.multi_node_mean_grad_async(buffers, self.zero_fill)
        object.__setattr__(self, "pending", pending)
        if self.needs_update:
            self.actual_optimizer.update(None, *args, **kwds)
        else:
            object.__setattr__(self, "needs_update", True)

    def mark_synchronized(self):
        """Records that the processes' parameters are already identical.

        The next :meth:`update` then starts exchanging gradients instead of
        broadcasting rank 0's parameters.
        """
        super().mark_synchronized()
        object.__setattr__(
            self, "communicated_grads", _GradBuffers(self.actual_optimizer.target)
        )
        object.__setattr__(self, "needs_update", False)

    def wait(self):
        """Waits for the gradient exchange running in the background, if any."""
        pending = self.pending
        if pending is not None:
            object.__setattr__(self, "pending", None)
            pending.wait()
