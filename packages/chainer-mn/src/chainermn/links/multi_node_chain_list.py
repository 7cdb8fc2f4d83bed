"""Models split over processes: :class:`MultiNodeChainList`."""

from __future__ import annotations

import numbers

from chainer import link
from chainermn import functions
from chainermn.links import _sharing


class MultiNodeChainList(_sharing.SharesCommunicator, link.ChainList):
    """A chain list whose components exchange their inputs and outputs.

    Each process builds its own part of a model that is split over
    processes: a list of components (links), each of which receives its
    inputs from other processes, runs, and sends its output to others. The
    sends and receives are :func:`~chainermn.functions.send` and
    :func:`~chainermn.functions.recv`, so gradients flow back through the
    processes in the backward pass. For example, an MLP split over two
    processes::

        class Part0(chainermn.MultiNodeChainList):      # on rank 0
            def __init__(self, comm):
                super().__init__(comm)
                self.add_link(L.Linear(784, 100), rank_in=None, rank_out=1)
                self.add_link(L.Linear(100, 10), rank_in=1, rank_out=None)

        class Part1(chainermn.MultiNodeChainList):      # on rank 1
            def __init__(self, comm):
                super().__init__(comm)
                self.add_link(L.Linear(100, 100), rank_in=0, rank_out=0)

    On rank 0, ``L.Classifier(Part0(comm))`` is trained as usual. On
    rank 1, ``Part1(comm)()`` takes no input and returns a *delegate
    variable*, from which that process runs its backward pass
    (``optimizer.update(model)`` does it).

    Calling the list runs the components in the order they were added.
    A component with ``rank_in=None`` gets the list's arguments; otherwise
    it gets one argument per rank in ``rank_in``, received from that process
    (or, for this process's own rank, the output an earlier component sent
    to itself). Its output goes to every rank in ``rank_out`` (to itself
    for its own rank); ``rank_out=None`` makes it the output of the list.
    All the communications of one call are chained in the graph with
    delegate variables, so the backward pass runs them in exactly the
    reverse order of the forward pass: processes whose forward passes fit
    together never wait for each other forever in the backward pass.

    The call returns the output of the component with ``rank_out=None``
    (at most one may have it); without one, the output sent to itself last,
    if any; otherwise the delegate variable of the last communication.

    Args:
        comm (~chainermn.communicators.CommunicatorBase): Communicator.
    """

    def __init__(self, comm):
        super().__init__()
        self._comm = comm
        self._rank_inouts = []

    def _check_ranks(self, ranks, what):
        if ranks is None:
            return None
        if isinstance(ranks, numbers.Integral) and not isinstance(ranks, bool):
            ranks = [ranks]
        elif isinstance(ranks, (list, tuple)):
            ranks = list(ranks)
        else:
            raise TypeError(
                f"{what} must be None, an int or a list of ints, got "
                f"{type(ranks).__name__}"
            )
        if not ranks:
            raise ValueError(f"{what} is an empty list; use None for no process")
        size = self._comm.size
        for r in ranks:
            if isinstance(r, bool) or not isinstance(r, numbers.Integral):
                raise TypeError(f"{what} has a non-int rank: {r!r}")
            if not 0 <= r < size:
                raise ValueError(
                    f"{what} has rank {r}, out of range: the communicator has "
                    f"{size} process(es), ranks 0 to {size - 1}"
                )
        return [int(r) for r in ranks]

    def _check_component(self, rank_in, rank_out):
        rank_in = self._check_ranks(rank_in, "rank_in")
        rank_out = self._check_ranks(rank_out, "rank_out")
        if rank_out is None and any(out is None for _, out in self._rank_inouts):
            raise ValueError(
                "MultiNodeChainList: a component with rank_out=None (the "
                "output of the list) was added already; only one may have it"
            )
        return rank_in, rank_out

    def add_link(self, link, rank_in=None, rank_out=None):
        """Appends a component.

        Args:
            link (~chainer.Link): The component.
            rank_in (int or list of int): Ranks of the processes whose
                outputs are the component's arguments, in order (this
                process's rank for the output an earlier component sent to
                itself); ``None`` to give it the list's arguments.
            rank_out (int or list of int): Ranks of the processes to send
                the component's output to (this process's rank to keep it
                for a later component); ``None`` if it is the output of the
                list.
        """
        rank_in, rank_out = self._check_component(rank_in, rank_out)
        super().add_link(link)
        self._rank_inouts.append((rank_in, rank_out))

    def insert(self, index, link, rank_in=None, rank_out=None):
        """Inserts a component before position ``index``.

        Args:
            index (int): Position, as for :meth:`list.insert`.
            link (~chainer.Link): The component.
            rank_in (int or list of int): See :meth:`add_link`.
            rank_out (int or list of int): See :meth:`add_link`.
        """
        rank_in, rank_out = self._check_component(rank_in, rank_out)
        super().insert(index, link)
        self._rank_inouts.insert(index, (rank_in, rank_out))

    def forward(self, *inputs):
        """Runs the components, receiving and sending as they were added.

        Args:
            *inputs: Arguments of the components added with
                ``rank_in=None``.

        Returns:
            ~chainer.Variable: The output of the list (see the class), or a
            delegate variable to start the backward pass from.
        """
        comm = self._comm
        recv = functions.recv
        send = functions.send
        # The output of the last communication: the next one takes it as a
        # delegate, which chains every communication of this call.
        token = None
        local = None  # an output sent to this process itself
        output = None
        has_output = False
        for index, (component, (rank_in, rank_out)) in enumerate(
            zip(self, self._rank_inouts, strict=True)
        ):
            if rank_in is None:
                x = component(*inputs)
            else:
                xs = []
                for r in rank_in:
                    if r == comm.rank:
                        if local is None:
                            raise RuntimeError(
                                f"MultiNodeChainList: component {index} takes an "
                                f"input from this process (rank {r}), but no "
                                "earlier component sent its output here"
                            )
                        xs.append(local)
                        local = None
                    else:
                        received = recv(comm, r, delegate_variable=token)
                        token = received[0] if isinstance(received, tuple) else received
                        xs.append(received)
                x = component(*xs)
            if rank_out is None:
                output = x
                has_output = True
                continue
            for r in rank_out:
                if r == comm.rank:
                    local = x
                else:
                    token = send(_connect(token, x), comm, r)
        if has_output:
            return _connect(token, output)
        if local is not None:
            return _connect(token, local)
        return token


def _connect(token, x):
    if token is None:
        return x
    if isinstance(x, (tuple, list)):
        ys = functions.pseudo_connect(token, *x)
        return ys if isinstance(ys, tuple) else (ys,)
    return functions.pseudo_connect(token, x)
