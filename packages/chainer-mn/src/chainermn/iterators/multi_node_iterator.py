"""An iterator read on one process and broadcast to the others."""

from __future__ import annotations

from chainer.dataset import iterator as iterator_module

_STATE_KEYS = ("epoch", "is_new_epoch", "epoch_detail", "previous_epoch_detail")


def create_multi_node_iterator(actual_iterator, communicator, rank_master=0):
    """Creates an iterator whose batches come from one process (collective).

    The master process (``rank_master``) reads the batches from
    ``actual_iterator`` and broadcasts each of them, with the iterator's
    epoch counters, to the other processes, which all receive the same
    batch. Model-parallel programs use it where several processes must see
    the same data (the processes holding the parts of one model). The
    other processes' ``actual_iterator`` is not read. ``StopIteration`` of
    a non-repeating master iterator is passed on as well.

    Example:
        >>> import chainer, chainermn
        >>> comm = chainermn.create_communicator('flat')
        >>> it = chainermn.iterators.create_multi_node_iterator(
        ...     chainer.iterators.SerialIterator([1, 2, 3], 2, shuffle=False),
        ...     comm)
        >>> next(it), it.epoch
        ([1, 2], 0)

    Args:
        actual_iterator (~chainer.dataset.Iterator): Iterator read on the
            master.
        communicator (~chainermn.communicators.CommunicatorBase):
            Communicator.
        rank_master (int): Rank of the process that reads the batches.

    Returns:
        ~chainer.dataset.Iterator: The multi-node iterator.
    """
    if communicator.rank == rank_master:
        return _MultiNodeIteratorMaster(actual_iterator, communicator, rank_master)
    return _MultiNodeIteratorSlave(communicator, rank_master)


def _state_of(it):
    return {key: getattr(it, key, None) for key in _STATE_KEYS}


class _MultiNodeIteratorMaster(iterator_module.Iterator):
    def __init__(self, actual_iterator, communicator, rank_master):
        self.actual_iterator = actual_iterator
        self.communicator = communicator
        self.rank_master = rank_master
        info = {
            "batch_size": getattr(actual_iterator, "batch_size", None),
            "repeat": getattr(actual_iterator, "repeat", None),
            **_state_of(actual_iterator),
        }
        communicator.bcast_obj(info, root=rank_master)

    def __next__(self):
        try:
            batch = next(self.actual_iterator)
        except StopIteration:
            self.communicator.bcast_obj((True, None, None), root=self.rank_master)
            raise
        self.communicator.bcast_obj(
            (False, batch, _state_of(self.actual_iterator)), root=self.rank_master
        )
        return batch

    def reset(self):
        """Rewinds the master's iterator (the others follow its broadcasts)."""
        self.actual_iterator.reset()

    def serialize(self, serializer):
        """Serializes the master's iterator.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer.
        """
        self.actual_iterator.serialize(serializer)

    def finalize(self):
        """Finalizes the master's iterator."""
        self.actual_iterator.finalize()

    def __getattr__(self, name):
        return getattr(self.actual_iterator, name)


class _MultiNodeIteratorSlave(iterator_module.Iterator):
    def __init__(self, communicator, rank_master):
        self.communicator = communicator
        self.rank_master = rank_master
        info = communicator.bcast_obj(None, root=rank_master)
        self.batch_size = info["batch_size"]
        self.repeat = info["repeat"]
        self._set_state(info)

    def _set_state(self, state):
        self.epoch = state["epoch"]
        self.is_new_epoch = state["is_new_epoch"]
        self.epoch_detail = state["epoch_detail"]
        self.previous_epoch_detail = state["previous_epoch_detail"]

    def __next__(self):
        stop, batch, state = self.communicator.bcast_obj(None, root=self.rank_master)
        if stop:
            raise StopIteration
        self._set_state(state)
        return batch

    def reset(self):
        """Does nothing: the master rewinds, and its broadcasts say so."""

    def serialize(self, serializer):
        """Serializes the epoch counters received from the master.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer.
        """
        self.epoch = int(serializer("epoch", self.epoch or 0))
        self.is_new_epoch = bool(serializer("is_new_epoch", bool(self.is_new_epoch)))
        detail = self.epoch_detail
        self.epoch_detail = float(
            serializer("epoch_detail", 0.0 if detail is None else detail)
        )
        previous = self.previous_epoch_detail
        previous = float(
            serializer("previous_epoch_detail", -1.0 if previous is None else previous)
        )
        self.previous_epoch_detail = None if previous < 0 else previous
