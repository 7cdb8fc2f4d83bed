"""Snapshot writers: how and when :func:`~chainer.training.extensions.snapshot`
puts a serialized object on disk.

Every writer saves atomically through :mod:`chainer.utils.atomic_file`:
``savefun`` writes a temporary file named ``tmp.<12 hex digits>.<filename>``
in the directory of the final file, locked while it is written; the file is
then synced to disk, given the mode of the snapshot it replaces and renamed
over the final name with ``os.replace``, and the directory is synced. A
``savefun`` that itself writes atomically through that module (the default
:func:`~chainer.serializers.save_npz`, and
:func:`~chainer.serializers.save_hdf5`) writes the same temporary file, so a
crash or a kill leaves at most one ``tmp.*`` file and never a truncated file
under the final name; snapshot loading never picks it, and the next snapshot
in that directory removes it.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import sys
import threading
import traceback

from chainer.serializers import npz
from chainer.utils import atomic_file

# Name of the threads and processes that write snapshots in the background.
_WORKER_NAME = "chainer-snapshot-writer"


def _save_atomically(filename, outdir, target, savefun, hooks, kwds):
    """Writes ``target`` to ``outdir/filename`` through a synced temporary file."""
    path = os.path.join(outdir, filename)
    directory, base = os.path.split(path)
    if not base:
        raise ValueError(f"snapshot file name {filename!r} names a directory")
    os.makedirs(directory or ".", exist_ok=True)
    with atomic_file.AtomicFile(path) as tmp:
        savefun(tmp.path, target, **kwds)
        if not os.path.exists(tmp.path):
            raise RuntimeError(
                f"savefun {savefun!r} did not write to the path it was given "
                f"({tmp.path!r}); it must save to exactly that path"
            )
    for hook in hooks:
        hook()


class Writer:
    """Base class of snapshot writers.

    A snapshot extension calls the writer with a file name, the output
    directory and the serialized target each time it takes a snapshot; the
    writer decides how and when the saving function runs.

    .. note::
       The serialized object is written to a temporary file first and then
       renamed to the target file name, so if the program stops in the
       middle, at most one ``tmp.*`` file is left in the output directory;
       the next snapshot there removes it.
    """

    def __init__(self):
        self._post_save_hooks = []

    def __call__(self, filename, outdir, target):
        """Invokes the actual snapshot function.

        Args:
            filename (str): Name of the file into which the serialized target
                is saved. It is a concrete file name, not a format template.
            outdir (str): Output directory; the trainer's ``out``.
            target (dict): Serialized object which will be saved.
        """
        # The documented base class is abstract; subclasses decide how to save.
        raise NotImplementedError

    def __del__(self):
        self.finalize()

    def __getstate__(self):
        # Process-based writers are pickled into the worker when
        # multiprocessing spawns instead of forking; thread and process
        # handles cannot travel and the worker does not need them.
        state = self.__dict__.copy()
        for key in ("_worker", "_consumer", "_lock"):
            state.pop(key, None)
        return state

    def finalize(self):
        """Finalizes the writer, waiting for pending writes to finish.

        Like the trainer's extensions, this method is invoked at the end of
        the training.
        """

    def save(self, filename, outdir, target, savefun, **kwds):
        """Saves ``target`` atomically to ``outdir/filename`` with ``savefun``.

        ``savefun`` writes a temporary file in the same directory, which is
        then synced and renamed to the final name; cleanup hooks run after a
        successful save.

        Args:
            filename (str): Name of the file to write.
            outdir (str): Output directory.
            target: Serialized object passed to ``savefun``.
            savefun (callable): Called as ``savefun(path, target, **kwds)``.
            **kwds: Keyword arguments for ``savefun``.
        """
        _save_atomically(
            filename, outdir, target, savefun, tuple(self._post_save_hooks), kwds
        )

    def _set_savefun(self, savefun, kwds):
        if not callable(savefun):
            raise TypeError(f"savefun must be callable, got {savefun!r}")
        self._savefun = savefun
        self._kwds = kwds

    def _add_cleanup_hook(self, hook_fun):
        """Adds a function called with no argument right after each save.

        Snapshot extensions use it to remove stale snapshots (``n_retains``).

        Args:
            hook_fun (callable): Function to call after a save completes.
        """
        self._post_save_hooks.append(hook_fun)


class SimpleWriter(Writer):
    """The simplest snapshot writer: it saves synchronously.

    Args:
        savefun (callable): Function called as ``savefun(path, target,
            **kwds)``: the output file path, the serialized dictionary and
            the keyword arguments below.
        **kwds: Keyword arguments for ``savefun``.
    """

    def __init__(self, savefun=npz.save_npz, **kwds):
        super().__init__()
        self._set_savefun(savefun, kwds)

    def __call__(self, filename, outdir, target):
        """Saves ``target`` to ``outdir/filename`` before returning.

        Args:
            filename (str): Name of the file to write.
            outdir (str): Output directory.
            target (dict): Serialized object.
        """
        self.save(filename, outdir, target, self._savefun, **self._kwds)


class StandardWriter(Writer):
    """Base class of writers that save in a new thread or process each time.

    A call waits for the previous snapshot's worker, then starts a new one;
    :meth:`finalize` waits for the last one. A failed background save is
    reported (``RuntimeError``) at the next call or at :meth:`finalize`.

    Args:
        savefun (callable): Function called as ``savefun(path, target,
            **kwds)``.
        **kwds: Keyword arguments for ``savefun``.
    """

    def __init__(self, savefun=npz.save_npz, **kwds):
        super().__init__()
        self._set_savefun(savefun, kwds)
        self._started = False
        self._finalized = False
        self._worker = None
        self._filename = None
        self._error = None

    def __call__(self, filename, outdir, target):
        """Starts saving ``target`` in the background.

        Args:
            filename (str): Name of the file to write.
            outdir (str): Output directory.
            target (dict): Serialized object; it must not change afterwards.
        """
        self._join()
        self._finalized = False
        self._filename = filename
        self._worker = self.create_worker(filename, outdir, target, **self._kwds)
        self._worker.start()
        self._started = True

    def create_worker(self, filename, outdir, target, **kwds):
        """Creates the thread or process that takes one snapshot.

        Args:
            filename (str): Name of the file to write.
            outdir (str): Output directory.
            target (dict): Serialized object.
            **kwds: Keyword arguments for ``savefun``.

        Returns:
            An object with ``start()`` and ``join()`` methods.
        """
        # The documented base class is abstract: threads or processes.
        raise NotImplementedError

    def _save_args(self, filename, outdir, target, kwds):
        # The arguments of _save_atomically for one snapshot; the hooks are
        # those registered when the worker is created.
        hooks = tuple(self._post_save_hooks)
        return filename, outdir, target, self._savefun, hooks, kwds

    def _join(self):
        if not getattr(self, "_started", False):
            return
        self._started = False
        self._worker.join()
        exitcode = getattr(self._worker, "exitcode", None)
        error, self._error = self._error, None
        if error is not None:
            raise RuntimeError(
                f"writing snapshot {self._filename!r} failed: {error}"
            ) from error
        # Only a process worker has an exit code (an int once it ended).
        if isinstance(exitcode, int) and exitcode != 0:
            raise RuntimeError(
                f"writing snapshot {self._filename!r} failed: the writer process "
                f"exited with code {exitcode}"
            )

    def finalize(self):
        """Waits for the pending snapshot, if any, and reports its failure."""
        if getattr(self, "_finalized", True):
            return
        self._finalized = True
        self._join()


class ThreadWriter(StandardWriter):
    """Snapshot writer that saves in a new thread for each snapshot.

    Args:
        savefun (callable): Function called as ``savefun(path, target,
            **kwds)``.
        **kwds: Keyword arguments for ``savefun``.
    """

    def create_worker(self, filename, outdir, target, **kwds):
        """Creates the thread that takes one snapshot.

        Args:
            filename (str): Name of the file to write.
            outdir (str): Output directory.
            target (dict): Serialized object.
            **kwds: Keyword arguments for ``savefun``.

        Returns:
            threading.Thread: The (not yet started) thread.
        """
        args = self._save_args(filename, outdir, target, kwds)

        def run():
            try:
                _save_atomically(*args)
            except Exception as exc:
                self._error = exc

        return threading.Thread(target=run, name=_WORKER_NAME)


class ProcessWriter(StandardWriter):
    """Snapshot writer that saves in a new process for each snapshot.

    ``savefun``, its keyword arguments and the serialized target must be
    picklable where multiprocessing spawns instead of forking.

    .. note::
       Forking from an MPI process can be dangerous; prefer
       :class:`ThreadWriter` there.

    Args:
        savefun (callable): Function called as ``savefun(path, target,
            **kwds)``.
        **kwds: Keyword arguments for ``savefun``.
    """

    def create_worker(self, filename, outdir, target, **kwds):
        """Creates the process that takes one snapshot.

        Args:
            filename (str): Name of the file to write.
            outdir (str): Output directory.
            target (dict): Serialized object.
            **kwds: Keyword arguments for ``savefun``.

        Returns:
            multiprocessing.Process: The (not yet started) process.
        """
        return multiprocessing.Process(
            target=_save_atomically,
            args=self._save_args(filename, outdir, target, kwds),
            name=_WORKER_NAME,
        )


class _TaskWithHooks:
    """A queued task followed by the writer's cleanup hooks (picklable)."""

    def __init__(self, task, hooks):
        self.task = task
        self.hooks = hooks

    def __call__(self, filename, outdir, target):
        self.task(filename, outdir, target)
        for hook in self.hooks:
            hook()


class QueueWriter(Writer):
    """Base class of snapshot writers with one worker fed by a queue.

    The queue and its consumer (a thread or a process) are created with the
    writer; each call puts a snapshot task into the queue, and
    :meth:`finalize` waits until every queued snapshot is written.

    Args:
        savefun (callable): Passed to :meth:`create_task` when ``task`` is
            ``None``; called as ``savefun(path, target)``.
        task (callable): Called as ``task(filename, outdir, target)``, the
            interface of :meth:`Writer.__call__`; put into the queue as it
            is.
    """

    def __init__(self, savefun=npz.save_npz, task=None):
        super().__init__()
        self._started = False
        self._finalized = False
        if task is None:
            task = self.create_task(savefun)
        elif not callable(task):
            raise TypeError(f"task must be callable, got {task!r}")
        self._task = task
        self._error = None
        self._start()

    def __call__(self, filename, outdir, target):
        """Queues a snapshot task.

        Args:
            filename (str): Name of the file to write.
            outdir (str): Output directory.
            target (dict): Serialized object; it must not change afterwards.
        """
        if not self._started:
            # Finalized by a previous training run: start a new worker.
            self._start()
        task = self._task
        if self._post_save_hooks:
            task = _TaskWithHooks(task, tuple(self._post_save_hooks))
        self._queue.put([task, filename, outdir, target])

    def _start(self):
        self._queue = self.create_queue()
        self._consumer = self.create_consumer(self._queue)
        self._consumer.start()
        self._started = True
        self._finalized = False

    def create_task(self, savefun):
        """Creates the task that saves one snapshot.

        Args:
            savefun (callable): Saving function.

        Returns:
            SimpleWriter: The task.
        """
        return SimpleWriter(savefun=savefun)

    def create_queue(self):
        """Creates the queue of snapshot tasks.

        Returns:
            A queue with ``put``, ``get``, ``task_done`` and ``join``.
        """
        # The documented base class is abstract: a thread or process queue.
        raise NotImplementedError

    def create_consumer(self, q):
        """Creates the worker that runs :meth:`consume` on the queue.

        Args:
            q: The queue made by :meth:`create_queue`.

        Returns:
            An object with ``start()`` and ``join()`` methods.
        """
        # The documented base class is abstract: a thread or a process.
        raise NotImplementedError

    def consume(self, q):
        """Runs queued tasks until the ``None`` sentinel arrives.

        A failed task is reported on stderr and the next ones still run; the
        failure is raised by :meth:`finalize` (a process consumer exits with
        code 1).

        Args:
            q: The queue of ``[task, filename, outdir, target]`` items.
        """
        failed = False
        while True:
            item = q.get()
            try:
                if item is None:
                    break
                # Indexed rather than unpacked: an item is any sequence whose
                # first four entries are the task and its arguments.
                task, filename, outdir, target = item[0], item[1], item[2], item[3]
                try:
                    task(filename, outdir, target)
                except Exception as exc:
                    failed = True
                    if self._error is None:
                        self._error = exc
                    print(
                        f"chainer: writing snapshot {filename!r} failed:",
                        file=sys.stderr,
                    )
                    traceback.print_exc()
            finally:
                q.task_done()
        in_child_process = (
            multiprocessing.parent_process() is not None
            and threading.current_thread() is threading.main_thread()
        )
        if failed and in_child_process:
            # A consumer process tells its parent through its exit code.
            sys.exit(1)

    def finalize(self):
        """Waits until every queued snapshot is written, then stops the worker."""
        if getattr(self, "_finalized", True) or not getattr(self, "_started", False):
            return
        self._finalized = True
        self._started = False
        self._queue.put(None)
        self._queue.join()
        self._consumer.join()
        close = getattr(self._queue, "close", None)
        if close is not None:
            # A multiprocessing queue keeps a feeder thread until closed;
            # a later fork in a multi-threaded process is unsafe.
            close()
            self._queue.join_thread()
        error, self._error = self._error, None
        if error is not None:
            raise RuntimeError(f"a queued snapshot write failed: {error}") from error
        # Only a process consumer has an exit code (an int once it ended).
        exitcode = getattr(self._consumer, "exitcode", None)
        if isinstance(exitcode, int) and exitcode != 0:
            raise RuntimeError(
                "a queued snapshot write failed: the writer process exited "
                f"with code {exitcode}"
            )


class ThreadQueueWriter(QueueWriter):
    """Snapshot writer with one background thread consuming a task queue.

    Args:
        savefun (callable): Saving function, used when ``task`` is ``None``.
        task (callable): Task run for each snapshot.
    """

    def create_queue(self):
        """Creates the task queue.

        Returns:
            queue.Queue: The queue.
        """
        return queue.Queue()

    def create_consumer(self, q):
        """Creates the consumer thread.

        Args:
            q (queue.Queue): The task queue.

        Returns:
            threading.Thread: The (not yet started) thread.
        """
        return threading.Thread(target=self.consume, args=(q,), name=_WORKER_NAME)


class ProcessQueueWriter(QueueWriter):
    """Snapshot writer with one background process consuming a task queue.

    Args:
        savefun (callable): Saving function, used when ``task`` is ``None``.
        task (callable): Task run for each snapshot; it must be picklable.
    """

    def create_queue(self):
        """Creates the task queue.

        Returns:
            multiprocessing.JoinableQueue: The queue.
        """
        return multiprocessing.JoinableQueue()

    def create_consumer(self, q):
        """Creates the consumer process.

        Args:
            q (multiprocessing.JoinableQueue): The task queue.

        Returns:
            multiprocessing.Process: The (not yet started) process.
        """
        return multiprocessing.Process(
            target=self.consume, args=(q,), name=_WORKER_NAME
        )
