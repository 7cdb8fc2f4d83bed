"""Worker processes of :class:`~chainer.iterators.MultiprocessIterator`.

Each worker has its own task pipe and result pipe, so the main process never
runs a helper thread (forking a process with threads is unsafe) and a worker
that dies can only break its own pipes. The main process hands each worker
chunks of dataset indices; the worker reads the examples and either writes
their arrays into a shared-memory slot (sending back a small description) or
pickles them through its result pipe.
"""

from __future__ import annotations

import collections
import multiprocessing
import multiprocessing.connection
import os
import pickle
import random
import signal
import traceback

import numpy

# Arrays in a shared-memory slot start at multiples of this many bytes.
_ALIGN = 16
# How often (seconds) an idle worker checks that its parent is still alive.
_PARENT_CHECK_INTERVAL = 1.0
# Bytes of tasks the main process lets wait in a worker's task pipe (Linux
# pipes hold 64 KiB).
_TASK_PIPE_BUDGET = 32 * 1024
_PROTOCOL = pickle.HIGHEST_PROTOCOL
# Sent by a worker that leaves after ``maxtasksperchild`` tasks.
_RETIRED = "retired"


def get_context():
    """Returns the multiprocessing context: 'fork' where the OS has it."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


# ---------------------------------------------------------------------------
# Packing examples into shared memory

# A packed example is ``(kind, items, shared)``: ``kind`` is 'array', 'tuple',
# 'list' or 'dict' (then ``items`` is a dict), and ``items[j]`` for ``j`` in
# ``shared`` is ``(offset, dtype, shape)``, an array placed in the slot. Plain
# tuples, not classes: pickling them is several times cheaper.


def _is_packable(value):
    return isinstance(value, numpy.ndarray) and not value.dtype.hasobject


def _aligned(nbytes):
    return -(-nbytes // _ALIGN) * _ALIGN


def _members(example):
    """Returns the kind of ``example`` and its direct members, or ``None``."""
    kind = type(example)
    if kind is tuple or kind is list:
        return kind.__name__, example
    if kind is dict:
        return "dict", list(example.values())
    if _is_packable(example):
        return "array", (example,)
    return None, ()


def measure(example):
    """Returns the shared memory (bytes) the arrays of ``example`` need."""
    _, members = _members(example)
    total = 0
    for value in members:
        if _is_packable(value):
            total += _aligned(value.nbytes)
    return total


def pack(example, buffer, offset, size):
    """Copies the arrays of ``example`` into ``buffer[offset:offset + size]``.

    Returns:
        tuple or None: The packed description of ``example``, or ``None``
        when it holds no array or its arrays do not fit (it is then sent
        pickled).
    """
    kind, members = _members(example)
    if kind is None:
        return None
    needed = measure(example)
    if needed == 0 or needed > size:
        return None
    items = list(members)
    shared = []
    for j, value in enumerate(items):
        if _is_packable(value):
            dtype = value.dtype
            numpy.ndarray(value.shape, dtype, buffer, offset)[...] = value
            # A builtin dtype travels as its short string.
            items[j] = (offset, dtype.str if dtype.isbuiltin else dtype, value.shape)
            shared.append(j)
            offset += _aligned(value.nbytes)
    if kind == "dict":
        items = dict(zip(example.keys(), items, strict=True))
    return kind, items, shared


def unpack(packed, buffer):
    """Rebuilds an example packed by :func:`pack`, copying its arrays out."""
    kind, items, shared = packed
    if kind == "dict":
        keys = list(items)
        values = list(items.values())
    else:
        values = list(items)
    for j in shared:
        offset, dtype, shape = values[j]
        values[j] = numpy.ndarray(shape, dtype, buffer, offset).copy()
    if kind == "array":
        return values[0]
    if kind == "dict":
        return dict(zip(keys, values, strict=True))
    return tuple(values) if kind == "tuple" else values


# ---------------------------------------------------------------------------
# The worker process


def _unpicklable(indices, examples):
    """Returns the dataset index of the first example that pickle refuses."""
    for index, example in zip(indices, examples, strict=True):
        try:
            pickle.dumps(example, _PROTOCOL)
        except Exception:
            return index
    return indices[0]


def _error_message(exc, what):
    """Describes an exception raised in a worker, picklable in any case."""
    tb = "".join(traceback.format_exception(exc))
    try:
        payload = pickle.dumps(exc)
        pickle.loads(payload)
    except Exception:
        payload = None
    return {
        "what": what,
        "message": str(exc),
        "traceback": tb,
        "exception": payload,
        "pid": os.getpid(),
    }


def _worker_main(dataset, tasks, results, buffers, mem_size, maxtasks, seed, parent):
    # Ctrl-C goes to the whole process group; the main process handles it
    # and stops the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Forked workers would otherwise all continue the parent's random
    # streams, so random augmentations in the dataset would be identical.
    numpy.random.seed(seed)
    random.seed(seed)
    views = None
    if buffers is not None:
        views = [numpy.frombuffer(b, dtype=numpy.uint8) for b in buffers]
    done = 0
    while maxtasks is None or done < maxtasks:
        while not tasks.poll(_PARENT_CHECK_INTERVAL):
            if os.getppid() != parent:
                return
        try:
            task = tasks.recv()
        except EOFError:
            return
        if task is None:
            return
        key, slot, start, indices = task
        view = None if views is None else views[slot]
        # Examples sent pickled; ``packed`` holds ``(position, description)``
        # of those placed in shared memory (their entry in ``out`` is None).
        out = []
        packed = []
        index = None
        try:
            for position, index in enumerate(indices, start):
                example = dataset[index]
                if view is not None:
                    description = pack(example, view, position * mem_size, mem_size)
                    if description is not None:
                        packed.append((position, description))
                        example = None
                out.append(example)
        except BaseException as exc:
            what = f"dataset[{index}] raised {type(exc).__name__}"
            payload = pickle.dumps((key, None, _error_message(exc, what)))
        else:
            try:
                payload = pickle.dumps((key, (out, packed), None), _PROTOCOL)
            except BaseException as exc:
                index = _unpicklable(indices, out)
                what = (
                    f"dataset[{index}] returned an example that cannot be "
                    f"pickled ({type(exc).__name__})"
                )
                payload = pickle.dumps((key, None, _error_message(exc, what)))
        results.send_bytes(payload)
        done += 1
    results.send_bytes(pickle.dumps(_RETIRED))


# ---------------------------------------------------------------------------
# The main-process side


class WorkerDied(RuntimeError):
    """A worker process ended without being asked to."""


class _Worker:
    __slots__ = (
        "backlog",
        "number",
        "pending",
        "process",
        "queued",
        "results",
        "retired",
        "sent",
        "tasks",
    )

    def __init__(self, number, process, tasks, results):
        self.number = number
        self.process = process
        self.tasks = tasks  # task pipe, written here
        self.results = results  # result pipe, read here
        self.backlog = collections.deque()  # (key, indices, payload) not sent
        self.pending = {}  # task key -> (indices, payload size), sent
        self.queued = 0  # bytes of the pending tasks
        self.sent = 0  # tasks assigned
        self.retired = False


class WorkerPool:
    """A set of worker processes reading examples of one dataset.

    Args:
        dataset: The dataset; workers get it by fork (or by pickling where
            fork is unavailable).
        n_processes (int): Number of workers.
        buffers (list or None): Shared-memory slots (``RawArray``), one per
            batch that can be in flight, or ``None`` to pickle every example.
        mem_size (int): Bytes of a slot reserved for each example.
        maxtasksperchild (int or None): Tasks after which a worker is
            replaced by a fresh process.
        seed_base (list of int): Entropy from which the workers' random seeds
            are derived.
    """

    def __init__(
        self, dataset, n_processes, buffers, mem_size, maxtasksperchild, seed_base
    ):
        self._ctx = get_context()
        self._dataset = dataset
        self._buffers = buffers
        self._mem_size = mem_size
        self._maxtasks = maxtasksperchild
        self._seed_base = list(seed_base)
        self._owner = os.getpid()
        self._count = 0
        self._turn = 0
        self.active = []  # workers that take tasks
        self._draining = []  # retired from taking tasks, finishing their last
        self._by_handle = {}
        try:
            for _ in range(n_processes):
                self.active.append(self._start_worker())
        except BaseException:
            self.close()
            raise

    def _start_worker(self):
        ctx = self._ctx
        task_reader, task_writer = ctx.Pipe(duplex=False)
        result_reader, result_writer = ctx.Pipe(duplex=False)
        number = self._count
        self._count += 1
        seed = numpy.random.SeedSequence([*self._seed_base, number]).generate_state(1)
        process = ctx.Process(
            target=_worker_main,
            args=(
                self._dataset,
                task_reader,
                result_writer,
                self._buffers,
                self._mem_size,
                self._maxtasks,
                int(seed[0]),
                os.getpid(),
            ),
            name=f"MultiprocessIterator-worker-{number}",
            daemon=True,
        )
        try:
            process.start()
        finally:
            # The worker holds its own ends; closing ours lets a dead
            # worker's result pipe read as EOF.
            task_reader.close()
            result_writer.close()
        worker = _Worker(number, process, task_writer, result_reader)
        self._by_handle[result_reader] = worker
        self._by_handle[process.sentinel] = worker
        return worker

    def submit(self, key, slot, start, indices):
        """Hands a task to the next worker in turn."""
        worker = self.active[self._turn % len(self.active)]
        self._turn += 1
        payload = pickle.dumps((key, slot, start, indices), _PROTOCOL)
        worker.backlog.append((key, indices, payload))
        self._flush(worker)
        worker.sent += 1
        if self._maxtasks is not None and worker.sent >= self._maxtasks:
            # It leaves after this task; a fresh process takes its turn.
            self.active[self.active.index(worker)] = self._start_worker()
            self._draining.append(worker)

    def _flush(self, worker):
        """Writes the worker's backlog into its task pipe, within budget."""
        # A worker blocked on writing a large result while the task pipe is
        # full would deadlock with the main process blocked on writing a
        # task, so the tasks in a pipe never fill it.
        backlog = worker.backlog
        while backlog:
            key, indices, payload = backlog[0]
            size = len(payload)
            if worker.queued and worker.queued + size > _TASK_PIPE_BUDGET:
                return
            try:
                worker.tasks.send_bytes(payload)
            except OSError:
                # The worker is gone; report how it ended.
                self._reap(worker)
                raise WorkerDied(self._death_message(worker)) from None
            backlog.popleft()
            worker.pending[key] = (indices, size)
            worker.queued += size

    def wait(self, timeout):
        """Returns the messages that arrive within ``timeout`` seconds.

        Raises:
            WorkerDied: A worker process ended unexpectedly.
        """
        handles = list(self._by_handle)
        ready = multiprocessing.connection.wait(handles, timeout)
        messages = []
        for handle in ready:
            worker = self._by_handle.get(handle)
            if worker is None:
                continue  # already reaped in this loop
            if handle is worker.results:
                try:
                    messages.append(self._receive(worker))
                    continue
                except EOFError:
                    pass
            messages.extend(self._drain(worker))
            self._reap(worker)
            if not worker.retired:
                raise WorkerDied(self._death_message(worker))
        return [m for m in messages if m is not None]

    def _receive(self, worker):
        message = pickle.loads(worker.results.recv_bytes())
        if message == _RETIRED:
            worker.retired = True
            return None
        task = worker.pending.pop(message[0], None)
        if task is not None:
            worker.queued -= task[1]
            if worker.backlog:
                self._flush(worker)
        return message

    def _drain(self, worker):
        messages = []
        try:
            while worker.results.poll():
                messages.append(self._receive(worker))
        except (EOFError, OSError):
            pass
        return messages

    def _reap(self, worker):
        worker.process.join(1.0)
        for handle in (worker.results, worker.process.sentinel):
            self._by_handle.pop(handle, None)
        if worker in self._draining:
            self._draining.remove(worker)

    def _death_message(self, worker):
        code = worker.process.exitcode
        if code is None:
            how = "stopped answering"
        elif code < 0:
            try:
                how = f"was killed by signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
        else:
            how = f"exited with code {code}"
        indices = [i for chunk, _ in worker.pending.values() for i in chunk]
        loading = ""
        if indices:
            shown = ", ".join(map(str, indices[:10]))
            more = ", ..." if len(indices) > 10 else ""
            loading = f" while loading dataset indices [{shown}{more}]"
        return (
            f"a MultiprocessIterator worker process (pid {worker.process.pid}) "
            f"{how}{loading}; the iterator's workers were stopped (the next "
            "call starts new ones)"
        )

    def close(self):
        """Stops every worker process and closes the pipes."""
        if os.getpid() != self._owner:
            return  # a forked child must not stop its parent's workers
        workers = self.active + self._draining
        self.active = []
        self._draining = []
        self._by_handle = {}
        for worker in workers:
            if worker.process.is_alive():
                worker.process.terminate()
        for worker in workers:
            worker.process.join(2.0)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.tasks.close()
            worker.results.close()
            worker.process.close()
