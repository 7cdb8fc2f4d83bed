"""The iterator that loads examples with a pool of threads."""

from __future__ import annotations

import concurrent.futures

from chainer.dataset import iterator
from chainer.iterators import _statemachine


def _load(dataset, indices):
    return [dataset[index] for index in indices]


class MultithreadIterator(_statemachine.StateMixin, iterator.Iterator):
    """Dataset iterator that loads examples in parallel with threads.

    While a batch is being used, the next one is already being loaded by a
    pool of ``n_threads`` threads. It pays off when reading an example
    releases the GIL (file reads, image decoding in C, NumPy operations on
    large arrays).

    The batches, their order and the epoch attributes are exactly those of
    :class:`~chainer.iterators.SerialIterator` with the same arguments and
    order sampler.

    Args:
        dataset: Dataset to iterate: any object with ``__len__`` and
            ``__getitem__`` taking an integer index.
        batch_size (int): Number of examples within each batch.
        repeat (bool): If ``True``, it infinitely loops over the dataset.
            Otherwise, it stops iteration at the end of the first epoch.
        shuffle (bool): If ``True``, the order of examples is shuffled at the
            beginning of each epoch. Otherwise, the order is permanently the
            same as that of the dataset. If ``None`` and no ``order_sampler``
            is given, the behavior is the same as the case with
            ``shuffle=True``.
        n_threads (int): Number of worker threads.
        order_sampler (callable): A callable that generates the order of the
            indices to sample in the next epoch when an epoch finishes (see
            :class:`~chainer.iterators.OrderSampler`). It is used only when
            ``shuffle`` is ``None``; passing both raises ``ValueError``.

    Attributes:
        dataset: The dataset.
        batch_size (int): The batch size.
        n_threads (int): The number of worker threads.
        order_sampler: The order sampler in use, or ``None`` for the
            dataset's own order.
    """

    def __init__(
        self,
        dataset,
        batch_size,
        repeat=True,
        shuffle=None,
        n_threads=1,
        order_sampler=None,
    ):
        self._init_state(dataset, batch_size, repeat, shuffle, order_sampler)
        self.n_threads = _statemachine.check_count(n_threads, "n_threads", 1)
        self._pool = None
        self._next = None
        self._next_state = None
        self._deferred_error = None
        self.reset()

    def __next__(self):
        """Returns the next batch and starts loading the one after it.

        Returns:
            list: The examples of the batch.

        Raises:
            StopIteration: A non-repeating iterator has finished its sweep.
        """
        if self._deferred_error is not None:
            exc, self._deferred_error = self._deferred_error, None
            raise exc
        if self._next is None:
            self._invoke_prefetch()
        futures, state = self._next, self._next_state
        if futures is None:
            raise StopIteration
        # Cleared first: if the dataset raised, the next call asks for the
        # same batch again instead of returning the failed one.
        self._next = None
        batch = []
        for future in futures:
            batch.extend(future.result())
        self._advance(state)
        try:
            self._invoke_prefetch()
        except Exception as exc:
            # The order sampler raised: that belongs to the next batch, which
            # raises it; the batch in hand is returned.
            self._deferred_error = exc
        return batch

    next = __next__

    def _invoke_prefetch(self):
        state, indices = self._next_batch(self._state)
        self._next_state = state
        if indices is None:
            self._next = None
            return
        pool = self._pool
        if pool is None:
            pool = self._pool = concurrent.futures.ThreadPoolExecutor(
                max_workers=self.n_threads,
                thread_name_prefix="MultithreadIterator",
            )
        # One task per thread: submitting each example apart would cost more
        # than loading a small one.
        n_chunks = min(self.n_threads, len(indices))
        step = -(-len(indices) // n_chunks)
        self._next = [
            pool.submit(_load, self.dataset, indices[i : i + step])
            for i in range(0, len(indices), step)
        ]

    def _drop_prefetched(self):
        futures = self._next
        self._next = None
        self._next_state = None
        self._deferred_error = None
        if futures is not None:
            for future in futures:
                future.cancel()

    def finalize(self):
        """Stops the worker threads.

        The iterator stays usable: the next batch starts a new pool.
        """
        self._drop_prefetched()
        pool = self._pool
        self._pool = None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def __del__(self):
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
