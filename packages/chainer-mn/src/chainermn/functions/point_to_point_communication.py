"""Differentiable point-to-point communication: :func:`send` and :func:`recv`."""

from __future__ import annotations

import numpy

from chainer import backend
from chainer import function_node
from chainermn.functions import _util


class Send(function_node.FunctionNode):
    """Sends its inputs (all but the last, an anchor) to ``peer_rank``."""

    def __init__(self, comm, peer_rank, peer_tag):
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag

    @property
    def label(self):
        return f"Send(to rank {self.peer_rank}, tag {self.peer_tag})"

    def forward(self, inputs):
        xs = inputs[:-1]
        self._metas = [(x.shape, x.dtype) for x in xs]
        self._devices = [_util.device_of(x) for x in xs]
        host = tuple(_util.to_host(x) for x in xs)
        data = host[0] if len(host) == 1 else host
        self.comm.send(data, self.peer_rank, self.peer_tag)
        # The delegate variable: an empty output standing for the send.
        xp = _util.device_of(inputs[-1]).xp
        return (xp.empty((0,), numpy.float32),)

    def backward(self, indexes, grad_outputs):
        # Whatever the delegate's gradient, the peer's Recv sends the
        # gradients of the sent arrays: receive them.
        received = self.comm.recv(self.peer_rank, self.peer_tag)
        if not isinstance(received, tuple):
            received = (received,)
        _util.check_received("send", f"rank {self.peer_rank}", received, self._metas)
        n = len(self._metas)
        return tuple(
            None if i == n else _util.send_to(self._devices[i], received[i])
            for i in indexes
        )


class Recv(function_node.FunctionNode):
    """Receives arrays from ``peer_rank``; its inputs only anchor it in the graph."""

    def __init__(self, comm, peer_rank, peer_tag, device=None):
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag
        self.device = device

    @property
    def label(self):
        return f"Recv(from rank {self.peer_rank}, tag {self.peer_tag})"

    def forward(self, inputs):
        data = self.comm.recv(self.peer_rank, self.peer_tag)
        self._is_tuple = isinstance(data, tuple)
        ys = data if self._is_tuple else (data,)
        if self.device is not None:
            ys = tuple(_util.send_to(self.device, y) for y in ys)
        self._metas = [(y.shape, y.dtype) for y in ys]
        self._in_metas = [(x.shape, x.dtype, _util.device_of(x)) for x in inputs]
        return ys

    def backward(self, indexes, grad_outputs):
        gys = _util.zero_grads(grad_outputs, self._metas)
        self.comm.send(
            tuple(gys) if self._is_tuple else gys[0], self.peer_rank, self.peer_tag
        )
        # The delegate variable gets a zero gradient (never None), so that
        # the backward of the node that made it runs after this one; the
        # anchor (the last input) gets none.
        last = len(self._in_metas) - 1
        ret = []
        for i in indexes:
            shape, dtype, device = self._in_metas[i]
            ret.append(None if i == last else device.xp.zeros(shape, dtype))
        return tuple(ret)


def send(x, communicator, rank, tag=0):
    """Sends a variable (or a tuple of them) to another process, differentiably.

    The arrays of ``x`` are sent to the process ``rank`` at once, where
    :func:`recv` returns them as variables. The function returns a
    *delegate variable*, an empty variable that stands for the send in this
    process's graph: its backward receives the gradients of ``x`` that the
    receiving process sends back from the backward of its :func:`recv`, and
    propagates them into ``x``'s graph. A process whose model ends with a
    send therefore starts its backward pass from the delegate variable::

        # rank 0                               # rank 1
        h = model_0(x)                         h = chainermn.functions.recv(
        phi = chainermn.functions.send(            comm, rank=0)
            h, comm, rank=1)                   loss = model_1(h, t)
        phi.backward()                         loss.backward()

    To combine the send with later computation in one graph, pass the
    delegate variable to :func:`recv` (``delegate_variable``) or
    :func:`~chainermn.functions.pseudo_connect`: the backward passes then
    run the communications in the reverse order of the forward ones, which
    keeps the processes from waiting for each other forever.

    The send blocks until the message is on its way (like ``MPI_Send``), so
    the receiving process must call :func:`recv` with the same ``tag``.
    Arrays on a GPU are copied to the host to be sent, and the gradients
    come back to the device of ``x``.

    Args:
        x (~chainer.Variable or :ref:`ndarray` or tuple of them): What to
            send; several variables (of any shapes and dtypes) travel as one
            message.
        communicator (~chainermn.communicators.CommunicatorBase): The
            communicator.
        rank (int): Rank of the receiving process; not this process's own.
        tag (int): Message tag, matched by the receiver's :func:`recv`.

    Returns:
        ~chainer.Variable: The delegate variable (empty, float32), ready for
        ``backward()``.
    """
    rank = _util.check_peer(communicator, rank, "send")
    tag = _util.check_tag(tag, "send")
    xs = tuple(x) if isinstance(x, (list, tuple)) else (x,)
    if not xs:
        raise ValueError("send: x is an empty sequence; there is nothing to send")
    for i, xi in enumerate(xs):
        if xi is None:
            raise TypeError(f"send: x[{i}] is None; send takes variables or arrays")
    anchor = _util.anchor(_util.device_of(xs[0]))
    (phi,) = Send(communicator, rank, tag).apply((*xs, anchor))
    return _util.as_delegate(phi)


def recv(
    communicator, rank, delegate_variable=None, tag=0, device=-1, force_tuple=False
):
    """Receives what :func:`send` sent from another process, differentiably.

    In the backward pass, the gradients of the received variables (zeros for
    those that got none) are sent back to the process ``rank``, whose
    :func:`send` hands them on to the variables it sent.

    Pass the delegate variable of an earlier :func:`send` of this process as
    ``delegate_variable`` to join the two in one graph: the backward of this
    receive then runs first, and the earlier send's backward after it, the
    reverse of their order in the forward pass. (A received variable must
    take part in the loss; if none of them gets a gradient, this function's
    backward does not run and the sender waits in vain.)

    Args:
        communicator (~chainermn.communicators.CommunicatorBase): The
            communicator.
        rank (int): Rank of the sending process; not this process's own.
        delegate_variable (~chainer.Variable): The delegate variable of an
            earlier send (or any variable) that this receive is to follow in
            the graph; ``None`` if there is none.
        tag (int): Message tag of the matching :func:`send`.
        device: Device on which to put the received arrays (``-1`` or
            ``None``: the host, as NumPy arrays; an int ``N`` for GPU ``N``,
            or any device specifier).
        force_tuple (bool): Return a tuple even when one variable was sent.

    Returns:
        ~chainer.Variable or tuple of ~chainer.Variable: The received
        variable, or a tuple of them if the sender sent several (or
        ``force_tuple`` is set).
    """
    rank = _util.check_peer(communicator, rank, "recv")
    tag = _util.check_tag(tag, "recv")
    target = None
    if device is not None and not (isinstance(device, int) and device == -1):
        target = backend.get_device(device)
    if delegate_variable is None:
        inputs = (_util.anchor(),)
    else:
        inputs = (delegate_variable, _util.anchor(_util.device_of(delegate_variable)))
    ys = Recv(communicator, rank, tag, target).apply(inputs)
    if len(ys) == 1 and not force_tuple:
        return ys[0]
    return ys
