"""Differentiable collective communication: bcast, gather, allgather, ...

Each function is collective: every process of the communicator calls it, in
the same order, and so runs its backward, which communicates too. Every node
takes an extra empty *anchor* input that requires a gradient, so that its
backward runs on every process even where the inputs are constants (a root's
array, a process that only receives).

Arrays on a GPU are copied to the host for the communicator and the results
come back to the device of the input (NumPy on processes that give none).
"""

from __future__ import annotations

from chainer import function_node
from chainermn.functions import _util


class _Collective(function_node.FunctionNode):
    """A collective communication over ``comm``; the last input is an anchor."""

    def __init__(self, comm):
        self.comm = comm

    def _to_device(self, arrays):
        return tuple(_util.send_to(self._device, a) for a in arrays)


class Bcast(_Collective):
    """Broadcasts input 0 of the root; backward sums the gradients to the root."""

    def __init__(self, comm, root):
        super().__init__(comm)
        self.root = root

    @property
    def label(self):
        return f"Bcast(root={self.root})"

    def forward(self, inputs):
        is_root = self.comm.rank == self.root
        self._device = _util.device_of(inputs[0] if is_root else inputs[-1])
        x = _util.to_host(inputs[0]) if is_root else None
        y = self.comm.bcast(x, root=self.root)
        self._meta = (y.shape, y.dtype)
        return self._to_device((y,))

    def backward(self, indexes, grad_outputs):
        (gy,) = _util.zero_grads(grad_outputs, [self._meta])
        gys = self.comm.gather(gy, root=self.root)
        if self.comm.rank != self.root:
            return (None,) * len(indexes)
        gx = gys[0].copy()
        for g in gys[1:]:
            gx += g
        return tuple(
            _util.send_to(self._device, gx) if i == 0 else None for i in indexes
        )


class Gather(_Collective):
    """Gathers input 0 of every process to the root (a delegate elsewhere)."""

    def __init__(self, comm, root):
        super().__init__(comm)
        self.root = root

    @property
    def label(self):
        return f"Gather(root={self.root})"

    def forward(self, inputs):
        x = inputs[0]
        self._device = _util.device_of(x)
        self._x_meta = (x.shape, x.dtype)
        ys = self.comm.gather(_util.to_host(x), root=self.root)
        if ys is None:
            # Not the root: an empty delegate variable stands for the gather.
            ys = (self._device.xp.empty((0,), "float32"),)
            self._metas = None
            return ys
        self._metas = [(y.shape, y.dtype) for y in ys]
        return self._to_device(ys)

    def backward(self, indexes, grad_outputs):
        gys = None
        if self._metas is not None:
            gys = _util.zero_grads(grad_outputs, self._metas)
        gx = self.comm.scatter(gys, root=self.root)
        _util.check_received(
            "gather (backward)", f"rank {self.root}", (gx,), [self._x_meta]
        )
        return tuple(
            _util.send_to(self._device, gx) if i == 0 else None for i in indexes
        )


class AllGather(_Collective):
    """Gathers input 0 of every process to every process."""

    def forward(self, inputs):
        x = inputs[0]
        self._device = _util.device_of(x)
        self._x_meta = (x.shape, x.dtype)
        ys = self.comm.allgather(_util.to_host(x))
        self._metas = [(y.shape, y.dtype) for y in ys]
        return self._to_device(ys)

    def backward(self, indexes, grad_outputs):
        # The gradient of process r's input is the sum, over the processes,
        # of the gradients of their copy of it: a reduce-scatter, done as an
        # all-to-all followed by a local sum.
        gys = _util.zero_grads(grad_outputs, self._metas)
        parts = self.comm.alltoall(tuple(gys))
        _util.check_received(
            "allgather (backward)",
            "the processes",
            parts,
            [self._x_meta] * len(parts),
        )
        gx = parts[0].copy()
        for g in parts[1:]:
            gx += g
        return tuple(
            _util.send_to(self._device, gx) if i == 0 else None for i in indexes
        )


class AllToAll(_Collective):
    """Sends input ``i`` to process ``i``; backward is the same exchange reversed."""

    def forward(self, inputs):
        xs = inputs[:-1]
        self._device = _util.device_of(xs[0])
        self._x_metas = [(x.shape, x.dtype) for x in xs]
        ys = self.comm.alltoall(tuple(_util.to_host(x) for x in xs))
        self._metas = [(y.shape, y.dtype) for y in ys]
        return self._to_device(ys)

    def backward(self, indexes, grad_outputs):
        gys = _util.zero_grads(grad_outputs, self._metas)
        gxs = self.comm.alltoall(tuple(gys))
        _util.check_received("alltoall (backward)", "the processes", gxs, self._x_metas)
        n = len(self._x_metas)
        return tuple(
            None if i == n else _util.send_to(self._device, gxs[i]) for i in indexes
        )


class Scatter(_Collective):
    """Sends input ``i`` of the root to process ``i``; backward gathers to the root."""

    def __init__(self, comm, root):
        super().__init__(comm)
        self.root = root

    @property
    def label(self):
        return f"Scatter(root={self.root})"

    def forward(self, inputs):
        is_root = self.comm.rank == self.root
        xs = inputs[:-1]
        self._device = _util.device_of(xs[0] if is_root else inputs[-1])
        self._x_metas = [(x.shape, x.dtype) for x in xs] if is_root else None
        y = self.comm.scatter(
            tuple(_util.to_host(x) for x in xs) if is_root else None, root=self.root
        )
        self._meta = (y.shape, y.dtype)
        return self._to_device((y,))

    def backward(self, indexes, grad_outputs):
        (gy,) = _util.zero_grads(grad_outputs, [self._meta])
        gxs = self.comm.gather(gy, root=self.root)
        if gxs is None:
            return (None,) * len(indexes)
        _util.check_received("scatter (backward)", "the processes", gxs, self._x_metas)
        n = len(self._x_metas)
        return tuple(
            None if i == n else _util.send_to(self._device, gxs[i]) for i in indexes
        )


def _anchor_like(x):
    return _util.anchor(None if x is None else _util.device_of(x))


def bcast(comm, x, root=0):
    """Broadcasts a variable from the root process to all, differentiably.

    Collective: every process calls it; ``x`` is used on the root only
    (other processes may pass ``None``). In the backward pass the gradients
    of the copies are gathered to the root and summed there into the
    gradient of ``x``.

    Args:
        comm (~chainermn.communicators.CommunicatorBase): The communicator.
        x (~chainer.Variable or :ref:`ndarray`): The variable to broadcast,
            on the root; ignored elsewhere.
        root (int): Rank of the root process.

    Returns:
        ~chainer.Variable: The root's value of ``x`` on every process (on
        the device of ``x`` on the root, on the host elsewhere).
    """
    root = _util.check_rank(comm, root, "bcast: root")
    if comm.rank == root:
        if x is None:
            raise TypeError("bcast: x is None on the root; give the variable to send")
        inputs = (x, _anchor_like(x))
    else:
        inputs = (_util.anchor(),)
    (y,) = Bcast(comm, root).apply(inputs)
    return y


def gather(comm, x, root=0):
    """Gathers one variable from every process to the root, differentiably.

    Collective. In the backward pass the root scatters the gradients of the
    gathered variables back to the processes they came from.

    Args:
        comm (~chainermn.communicators.CommunicatorBase): The communicator.
        x (~chainer.Variable or :ref:`ndarray`): This process's variable;
            shapes and dtypes may differ between processes.
        root (int): Rank of the root process.

    Returns:
        tuple of ~chainer.Variable or ~chainer.Variable: On the root, the
        variables of all processes in rank order. Elsewhere an empty
        *delegate variable* standing for the gather: a process whose loss
        does not otherwise depend on the gather starts its backward pass
        from it (``ys.backward()``), or joins it to its loss with
        :func:`~chainermn.functions.pseudo_connect`.
    """
    root = _util.check_rank(comm, root, "gather: root")
    if x is None:
        raise TypeError("gather: x is None; every process gives a variable")
    ys = Gather(comm, root).apply((x, _anchor_like(x)))
    if comm.rank != root:
        return _util.as_delegate(ys[0])
    return ys


def allgather(comm, x):
    """Gathers one variable from every process to every process, differentiably.

    Collective. In the backward pass each process's gradient of ``x`` is the
    sum of the gradients of all processes' copies of it (a reduce-scatter).

    Args:
        comm (~chainermn.communicators.CommunicatorBase): The communicator.
        x (~chainer.Variable or :ref:`ndarray`): This process's variable;
            shapes and dtypes may differ between processes.

    Returns:
        tuple of ~chainer.Variable: The variables of all processes, in rank
        order.
    """
    if x is None:
        raise TypeError("allgather: x is None; every process gives a variable")
    return AllGather(comm).apply((x, _anchor_like(x)))


def alltoall(comm, xs):
    """Sends ``xs[i]`` to process ``i`` and receives one variable from each.

    Collective and differentiable: in the backward pass the gradients travel
    back the same way, each to the process its variable came from. Unlike
    :func:`~chainermn.functions.send` and :func:`~chainermn.functions.recv`,
    no delegate variables are needed: every process takes part in the
    backward when it reaches this function.

    Args:
        comm (~chainermn.communicators.CommunicatorBase): The communicator.
        xs (tuple of ~chainer.Variable or :ref:`ndarray`): One variable per
            process (``comm.size`` of them); shapes and dtypes may differ.

    Returns:
        tuple of ~chainer.Variable: The variable each process sent to this
        one, in rank order.
    """
    xs = tuple(xs)
    if len(xs) != comm.size:
        raise ValueError(
            f"alltoall: xs has {len(xs)} variable(s) but the communicator has "
            f"{comm.size} process(es); give one variable per process"
        )
    for i, x in enumerate(xs):
        if x is None:
            raise TypeError(f"alltoall: xs[{i}] is None")
    return AllToAll(comm).apply((*xs, _anchor_like(xs[0])))


def scatter(comm, xs, root=0):
    """Sends ``xs[i]`` from the root to process ``i``, differentiably.

    Collective. In the backward pass the gradients are gathered back to the
    root, into the gradients of ``xs``.

    Args:
        comm (~chainermn.communicators.CommunicatorBase): The communicator.
        xs (tuple of ~chainer.Variable or :ref:`ndarray`): One variable per
            process (``comm.size`` of them) on the root; ignored (may be
            ``None``) elsewhere.
        root (int): Rank of the root process.

    Returns:
        ~chainer.Variable: This process's variable (on the device of ``xs``
        on the root, on the host elsewhere).
    """
    root = _util.check_rank(comm, root, "scatter: root")
    if comm.rank == root:
        if xs is None:
            raise TypeError(
                "scatter: xs is None on the root; give one variable per process"
            )
        xs = tuple(xs)
        if len(xs) != comm.size:
            raise ValueError(
                f"scatter: xs has {len(xs)} variable(s) but the communicator "
                f"has {comm.size} process(es); give one variable per process"
            )
        for i, x in enumerate(xs):
            if x is None:
                raise TypeError(f"scatter: xs[{i}] is None")
        inputs = (*xs, _anchor_like(xs[0]))
    else:
        inputs = (_util.anchor(),)
    (y,) = Scatter(comm, root).apply(inputs)
    return y
