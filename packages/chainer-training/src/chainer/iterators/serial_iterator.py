"""The iterator that loads minibatches in the calling thread."""

from __future__ import annotations

from chainer.dataset import iterator
from chainer.iterators import _statemachine


class SerialIterator(_statemachine.StateMixin, iterator.Iterator):
    """Dataset iterator that serially reads the examples.

    This is the simplest iterator: it builds each minibatch by indexing the
    dataset one example at a time, in either sequential or shuffled order.

    To avoid an unintentional performance bottleneck, ``shuffle=False`` is
    the fast choice for a sliceable evaluation set read in order.

    When ``repeat`` is ``True`` the iterator runs forever; the batch that
    reaches the end of an epoch is completed with the first examples of the
    next epoch (in that epoch's order), so every batch has ``batch_size``
    examples. Otherwise it stops after one sweep, and the last batch may be
    smaller.

    Args:
        dataset: Dataset to iterate: any object with ``__len__`` and
            ``__getitem__`` taking an integer index (a list works).
        batch_size (int): Number of examples within each batch.
        repeat (bool): If ``True``, it infinitely loops over the dataset.
            Otherwise, it stops iteration at the end of the first epoch.
        shuffle (bool): If ``True``, the order of examples is shuffled at the
            beginning of each epoch. Otherwise, examples are extracted in the
            order of indexes. If ``None`` and no ``order_sampler`` is given,
            the behavior is the same as the case with ``shuffle=True``.
        order_sampler (callable): A callable that generates the order of the
            indices to sample in the next epoch when an epoch finishes. It
            takes ``(current_order, current_position)`` and returns the next
            order (see :class:`~chainer.iterators.OrderSampler`). It is used
            only when ``shuffle`` is ``None``; passing both raises
            ``ValueError``.

    Attributes:
        dataset: The dataset.
        batch_size (int): The batch size.
        order_sampler: The order sampler in use, or ``None`` for the
            dataset's own order.

    Example:
        >>> from chainer import iterators
        >>> it = iterators.SerialIterator([0, 1, 2, 3, 4], 2, shuffle=False)
        >>> next(it), next(it), next(it)
        ([0, 1], [2, 3], [4, 0])
        >>> it.epoch, it.is_new_epoch, it.epoch_detail
        (1, True, 1.2)
        >>> test_iter = iterators.SerialIterator([0, 1, 2], 2, False, False)
        >>> [batch for batch in test_iter]
        [[0, 1], [2]]
    """

    def __init__(
        self, dataset, batch_size, repeat=True, shuffle=None, order_sampler=None
    ):
        self._init_state(dataset, batch_size, repeat, shuffle, order_sampler)
        self.reset()

    def __next__(self):
        """Returns the next batch.

        Returns:
            list: The examples of the batch.

        Raises:
            StopIteration: A non-repeating iterator has finished its sweep.
        """
        state, indices = self._next_batch(self._state)
        if indices is None:
            raise StopIteration
        dataset = self.dataset
        batch = [dataset[index] for index in indices]
        self._advance(state)
        return batch

    next = __next__
