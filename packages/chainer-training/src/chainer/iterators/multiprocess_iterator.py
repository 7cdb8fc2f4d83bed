"""The iterator that loads examples in worker processes."""

from __future__ import annotations

import collections
import multiprocessing
import pickle
import time
import warnings

import numpy

from chainer.dataset import iterator
from chainer.iterators import _statemachine
from chainer.iterators import _worker_pool


class _Batch:
    """A batch handed to the workers and not returned yet."""

    __slots__ = (
        "discarded",
        "error",
        "examples",
        "id",
        "packed",
        "remaining",
        "slot",
        "state",
        "submitted",
    )

    def __init__(self, batch_id, slot, state, size):
        self.id = batch_id
        self.slot = slot
        self.state = state  # the iterator's state once this batch is returned
        self.examples = [None] * size
        self.packed = []  # (position, description) of examples in the slot
        self.remaining = 0  # chunks not received yet
        self.error = None
        self.submitted = time.monotonic()
        self.discarded = False


class _RemoteTraceback(Exception):
    """Carries the traceback of an exception raised in a worker process."""


class MultiprocessIterator(_statemachine.StateMixin, iterator.Iterator):
    """Dataset iterator that loads examples in parallel.

    This is an implementation of :class:`~chainer.dataset.Iterator` that
    loads examples with worker processes. It uses the standard
    :mod:`multiprocessing` module (the ``fork`` start method where the OS has
    it) to parallelize the loading. The dataset is sent to the worker
    processes when they start; later changes to the dataset object are not
    seen by them.

    While a batch is used, the next ``n_prefetch`` batches are being loaded.
    The order of the examples is decided in the main process, so the batches
    and the epoch attributes are exactly those of
    :class:`~chainer.iterators.SerialIterator` with the same arguments and
    order sampler.

    Examples made of NumPy arrays (an array, or a tuple, list or dict of
    them) come back through shared memory when they fit in ``shared_mem``
    bytes; anything else is pickled through a pipe.

    A worker process that dies (killed, or crashing in native code) makes
    the call waiting for its examples raise ``RuntimeError``; an exception
    raised by the dataset is raised again in the main process, with the
    worker's traceback as its cause.

    Args:
        dataset (~chainer.dataset.Dataset): Dataset to iterate.
        batch_size (int): Number of examples within each batch.
        repeat (bool): If ``True``, it infinitely loops over the dataset.
            Otherwise, it stops iteration at the end of the first epoch.
        shuffle (bool): If ``True``, the order of examples is shuffled at the
            beginning of each epoch. Otherwise, the order is permanently the
            same as that of the dataset. If ``None`` and no ``order_sampler``
            is given, the behavior is the same as the case with
            ``shuffle=True``.
        n_processes (int): Number of worker processes. The number of CPUs is
            used by default.
        n_prefetch (int): Number of prefetch batches.
        shared_mem (int): The size of using shared memory per data, in
            bytes. If ``None``, size is adjusted automatically: the first
            batch is loaded in the main process and the largest of its
            examples sets the size. ``0`` disables shared memory.
        order_sampler (callable): A callable that generates the order of the
            indices to sample in the next epoch when an epoch finishes (see
            :class:`~chainer.iterators.OrderSampler`). It is used only when
            ``shuffle`` is ``None``; passing both raises ``ValueError``.
        dataset_timeout (float): :class:`MultiprocessIterator.TimeoutWarning`
            will be issued after this time in seconds elapsed in each dataset
            realization. ``None`` to disable the warning.
        maxtasksperchild (int): Number of tasks (chunks of a batch) a worker
            process handles before it is replaced by a fresh one, which frees
            what the dataset leaks. ``None`` keeps the workers for the whole
            run.

    Attributes:
        dataset: The dataset.
        batch_size (int): The batch size.
        n_processes (int): The number of worker processes.
        n_prefetch (int): The number of batches loaded ahead.
        shared_mem (int): The ``shared_mem`` argument.
        dataset_timeout (float): The ``dataset_timeout`` argument.
        order_sampler: The order sampler in use, or ``None`` for the
            dataset's own order.
    """

    class TimeoutWarning(RuntimeWarning):
        """Warning issued when loading a batch takes over ``dataset_timeout``."""

    def __init__(
        self,
        dataset,
        batch_size,
        repeat=True,
        shuffle=None,
        n_processes=None,
        n_prefetch=1,
        shared_mem=None,
        order_sampler=None,
        dataset_timeout=30.0,
        maxtasksperchild=None,
    ):
        check = _statemachine.check_count
        self._init_state(dataset, batch_size, repeat, shuffle, order_sampler)
        if n_processes is None:
            n_processes = multiprocessing.cpu_count()
        self.n_processes = check(n_processes, "n_processes", 1)
        self.n_prefetch = check(n_prefetch, "n_prefetch", 1)
        self.shared_mem = check(shared_mem, "shared_mem", 0, allow_none=True)
        if dataset_timeout is not None:
            if isinstance(dataset_timeout, bool) or not isinstance(
                dataset_timeout, (int, float)
            ):
                raise TypeError(
                    "dataset_timeout must be a number of seconds or None, not "
                    f"{type(dataset_timeout).__name__}"
                )
            if not dataset_timeout > 0:
                raise ValueError(
                    f"dataset_timeout must be positive, got {dataset_timeout}"
                )
        self.dataset_timeout = dataset_timeout
        self.maxtasksperchild = check(
            maxtasksperchild, "maxtasksperchild", 1, allow_none=True
        )

        self._mem_size = self.shared_mem  # None until the first batch is measured
        self._pool = None
        self._buffers = None
        self._views = None
        self._inflight = {}  # batch id -> _Batch, discarded ones included
        self._queue = collections.deque()  # ids of the batches to return, in order
        self._free_slots = list(range(self.n_prefetch))
        self._batch_count = 0
        self._deferred_error = None
        self.reset()

    def __next__(self):
        """Returns the next batch and starts loading the following ones.

        Returns:
            list: The examples of the batch.

        Raises:
            StopIteration: A non-repeating iterator has finished its sweep.
            RuntimeError: A worker process died.
        """
        if self._deferred_error is not None:
            exc, self._deferred_error = self._deferred_error, None
            raise exc
        if self._mem_size is None:
            return self._next_measured()
        if self._pool is None:
            self._start()
        while True:
            self._fill()
            if self._queue:
                break
            if self._sched_done:
                raise StopIteration
            # Every slot is held by a batch dropped by reset() or a resume;
            # wait for its examples to land before reusing the slot.
            self._receive(None)
        batch = self._inflight[self._queue[0]]
        self._wait(batch)
        self._queue.popleft()
        del self._inflight[batch.id]
        examples = batch.examples
        if batch.packed:
            view = self._views[batch.slot]
            for position, description in batch.packed:
                examples[position] = _worker_pool.unpack(description, view)
        self._free_slots.append(batch.slot)
        if batch.error is not None:
            # Ask again for this batch (and the ones after it) next time.
            self._drop_prefetched()
            _raise_remote(batch.error)
        self._advance(batch.state)
        self._prefetch_after_return()
        return examples

    next = __next__

    def _next_measured(self):
        # Loads the first batch here to size the shared memory from it.
        state, indices = self._next_batch(self._sched_state)
        if indices is None:
            raise StopIteration
        start = time.monotonic()
        dataset = self.dataset
        batch = [dataset[index] for index in indices]
        elapsed = time.monotonic() - start
        if self.dataset_timeout is not None and elapsed > self.dataset_timeout:
            self._warn_timeout(elapsed)
        self._mem_size = max(_worker_pool.measure(x) for x in batch)
        self._start()
        self._advance(state)
        self._sched_state = state
        self._prefetch_after_return()
        return batch

    def _prefetch_after_return(self):
        # A failure here (a worker died, the order sampler raised) belongs to
        # a later batch: it is raised by the next call, and the batch in hand
        # is returned.
        try:
            self._fill()
        except Exception as exc:
            self._deferred_error = exc

    def _start(self):
        if self._mem_size and self._buffers is None:
            ctx = _worker_pool.get_context()
            size = self.batch_size * self._mem_size
            self._buffers = [ctx.RawArray("B", size) for _ in range(self.n_prefetch)]
            self._views = [
                numpy.frombuffer(b, dtype=numpy.uint8) for b in self._buffers
            ]
        # Entropy for the workers' seeds, read without drawing from NumPy's
        # global generator (which would change the shuffled order).
        keys = numpy.random.get_state()[1]
        self._pool = _worker_pool.WorkerPool(
            self.dataset,
            self.n_processes,
            self._buffers,
            self._mem_size,
            self.maxtasksperchild,
            [int(k) for k in keys[:8]],
        )

    def _fill(self):
        """Hands batches to the workers until ``n_prefetch`` are in flight."""
        while (
            not self._sched_done
            and len(self._queue) < self.n_prefetch
            and self._free_slots
        ):
            state, indices = self._next_batch(self._sched_state)
            if indices is None:
                self._sched_done = True
                return
            self._sched_state = state
            batch = _Batch(
                self._batch_count, self._free_slots.pop(), state, len(indices)
            )
            self._batch_count += 1
            self._inflight[batch.id] = batch
            self._queue.append(batch.id)
            n_chunks = min(len(indices), len(self._pool.active))
            step = -(-len(indices) // n_chunks)
            starts = range(0, len(indices), step)
            batch.remaining = len(starts)
            try:
                for start in starts:
                    self._pool.submit(
                        (batch.id, start),
                        batch.slot,
                        start,
                        indices[start : start + step],
                    )
            except BaseException as exc:
                # A batch handed out in part would never complete.
                self.finalize()
                if isinstance(exc, _worker_pool.WorkerDied):
                    raise RuntimeError(str(exc)) from None
                raise

    def _call_pool(self, method, *args):
        try:
            return method(*args)
        except _worker_pool.WorkerDied as exc:
            self.finalize()
            raise RuntimeError(str(exc)) from None

    def _receive(self, timeout):
        """Stores the examples that arrive within ``timeout`` seconds."""
        messages = self._call_pool(self._pool.wait, timeout)
        inflight = self._inflight
        for (batch_id, start), examples, error in messages:
            batch = inflight.get(batch_id)
            if batch is None:
                continue
            batch.remaining -= 1
            if error is not None:
                if batch.error is None:
                    batch.error = error
            else:
                examples, packed = examples
                batch.examples[start : start + len(examples)] = examples
                if packed:
                    batch.packed.extend(packed)
            if batch.discarded and batch.remaining == 0:
                del inflight[batch_id]
                self._free_slots.append(batch.slot)

    def _wait(self, batch):
        warned = self.dataset_timeout is None
        while batch.remaining:
            timeout = None
            if not warned:
                timeout = batch.submitted + self.dataset_timeout - time.monotonic()
                if timeout <= 0:
                    self._warn_timeout(time.monotonic() - batch.submitted)
                    warned = True
                    timeout = None
            self._receive(timeout)

    def _warn_timeout(self, elapsed):
        warnings.warn(
            f"MultiprocessIterator: a batch has been loading for {elapsed:.1f} "
            f"seconds, over dataset_timeout={self.dataset_timeout}. The dataset "
            "may be stalled: a worker process can deadlock on a lock (threads "
            "or an OpenCV/OpenMP thread pool used before the fork), or the "
            "dataset is very slow. Pass dataset_timeout=None to silence this.",
            MultiprocessIterator.TimeoutWarning,
        )

    def _drop_prefetched(self):
        """Drops the batches in flight; loading resumes from ``_state``."""
        for batch_id in self._queue:
            batch = self._inflight[batch_id]
            if batch.remaining == 0 or self._views is None:
                # Nothing will write into its slot any more.
                del self._inflight[batch_id]
                self._free_slots.append(batch.slot)
            else:
                batch.discarded = True
        self._queue.clear()
        self._sched_state = self._state
        self._sched_done = False
        self._deferred_error = None

    def finalize(self):
        """Stops the worker processes and frees the shared memory.

        The iterator stays usable: the next batch starts new workers, going
        on from the last batch returned.
        """
        pool = self._pool
        self._pool = None
        self._inflight.clear()
        self._queue.clear()
        self._free_slots = list(range(self.n_prefetch))
        self._sched_state = self._state
        self._sched_done = False
        if pool is not None:
            pool.close()
        self._buffers = None
        self._views = None

    def __del__(self):
        if getattr(self, "_pool", None) is not None:
            try:
                self.finalize()
            except Exception:
                # Interpreter shutdown may have torn down what closing needs;
                # multiprocessing stops daemonic workers at exit anyway.
                pass


def _raise_remote(error):
    """Raises in the main process the exception a worker reported."""
    where = (
        f"{error['what']} in a MultiprocessIterator worker process (pid {error['pid']})"
    )
    cause = _RemoteTraceback(f"\n{error['traceback']}")
    exc = None
    if error["exception"] is not None:
        try:
            exc = pickle.loads(error["exception"])
        except Exception:
            exc = None
    if not isinstance(exc, BaseException):
        exc = RuntimeError(f"{where}: {error['message']}")
    else:
        exc.add_note(where)
    raise exc from cause
