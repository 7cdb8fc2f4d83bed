"""Iterators that shuffle identically on every process."""

from __future__ import annotations

import numpy

from chainer.iterators import order_samplers


def create_synchronized_iterator(actual_iterator, communicator):
    """Makes a shuffling iterator draw the same order on every process.

    Rank 0 draws a seed and broadcasts it; every process's iterator then
    takes a :class:`~chainer.iterators.ShuffleOrderSampler` seeded with it
    and is reset, so that all processes, each holding the same dataset,
    read the same examples in the same order (e.g. the encoder and the
    decoder of a model split over two processes). Each process still reads
    its own copy of the dataset, unlike
    :func:`~chainermn.iterators.create_multi_node_iterator`. An iterator
    that does not shuffle is returned as it is. Collective.

    Args:
        actual_iterator (~chainer.dataset.Iterator): An iterator with an
            ``order_sampler`` (``SerialIterator``,
            ``MultiprocessIterator``, ``MultithreadIterator``).
        communicator (~chainermn.communicators.CommunicatorBase):
            Communicator.

    Returns:
        The same iterator, now shuffling identically on every process.
    """
    if not hasattr(actual_iterator, "order_sampler"):
        raise ValueError(
            "create_synchronized_iterator needs an iterator with an "
            f"order_sampler (e.g. SerialIterator); got {type(actual_iterator).__name__}"
        )
    sampler = actual_iterator.order_sampler
    if sampler is not None and not isinstance(
        sampler, order_samplers.ShuffleOrderSampler
    ):
        raise ValueError(
            "create_synchronized_iterator supports shuffling with "
            "ShuffleOrderSampler only; the iterator has a "
            f"{type(sampler).__name__}"
        )
    seed = None
    if communicator.rank == 0:
        seed = int(numpy.random.randint(0, 2**31 - 1))
    seed = communicator.bcast_obj(seed, root=0)
    if sampler is None:
        return actual_iterator
    actual_iterator.order_sampler = order_samplers.ShuffleOrderSampler(
        numpy.random.RandomState(seed)
    )
    actual_iterator.reset()
    return actual_iterator
