"""The multi-node checkpointer: per-process snapshots and a common resume point."""

from __future__ import annotations

import os
import re
import time

from chainer import serializers
from chainer.training import extension


def create_multi_node_checkpointer(name, comm, cp_interval=5, gc_interval=5, path=None):
    """Creates a trainer extension that checkpoints every process's state.

    Each time the extension is triggered (register it with
    ``trainer.extend(checkpointer, trigger=(1000, 'iteration'))``; its
    default trigger is one epoch), every process saves a snapshot of its
    whole trainer (model, optimizer state, iterator position, extensions)
    to ``<path>/<name>.<rank>.<iteration>``; the file is written to a
    temporary name and renamed, so a process killed while saving never
    leaves a truncated snapshot. On a shared file system all processes can
    use the same directory; otherwise each uses its own.

    To resume after a failure (a process died, the job was killed), relaunch
    the same script: :meth:`maybe_load`, called before ``trainer.run()``,
    finds the newest iteration for which *every* process has a snapshot,
    and loads it::

        checkpointer = chainermn.create_multi_node_checkpointer('mnist', comm)
        checkpointer.maybe_load(trainer, optimizer)
        trainer.extend(checkpointer, trigger=(100, 'iteration'))
        trainer.run()

    Every ``gc_interval`` snapshots (and at the end of training) the
    processes agree on the snapshots they all have, keep the newest
    ``cp_interval`` of them, and delete their older files.

    Args:
        name (str): Name of the training job; it prefixes the file names.
        comm (~chainermn.communicators.CommunicatorBase): Communicator.
        cp_interval (int): Number of complete (all-process) snapshots to
            keep.
        gc_interval (int): Number of snapshots between two collections of
            old snapshots.
        path (str): Directory of the snapshots; ``trainer.out`` by default.

    Returns:
        The checkpointer extension.
    """
    return _MultiNodeCheckpointer(name, comm, cp_interval, gc_interval, path)


def _positive(value, what):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be a positive int, got {value!r}")
    return value


class _MultiNodeCheckpointer(extension.Extension):
    trigger = 1, "epoch"
    priority = -100

    def __init__(self, name, comm, cp_interval, gc_interval, path):
        if not isinstance(name, str) or not name:
            raise ValueError(
                f"the checkpoint name must be a non-empty str, got {name!r}"
            )
        self.name = name
        self.cp_name = name
        self.comm = comm
        self.cp_interval = _positive(cp_interval, "cp_interval")
        self.gc_interval = _positive(gc_interval, "gc_interval")
        self.path = path
        self.files = []
        self._durations = []
        self._saves_since_gc = 0
        self._failed = False
        self._pattern = re.compile(rf"^{re.escape(name)}\.{comm.rank}\.(\d+)$")
        if path is not None:
            os.makedirs(path, exist_ok=True)

    def __call__(self, trainer):
        """Saves this process's snapshot; collects old ones every gc_interval.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        self._ensure_path(trainer.out)
        self.save(trainer, trainer.updater.iteration)
        if self._saves_since_gc >= self.gc_interval:
            self._gc()

    def save(self, trainer, iteration):
        """Saves this process's snapshot of ``trainer`` for ``iteration``.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
            iteration (int): Iteration number in the file name.
        """
        self._ensure_path(trainer.out)
        filename = self._filename(iteration)
        start = time.perf_counter()
        serializers.save_npz(os.path.join(self.path, filename), trainer)
        self._durations.append(time.perf_counter() - start)
        if filename not in self.files:
            self.files.append(filename)
        self._saves_since_gc += 1

    def maybe_load(self, trainer, optimizer=None, path=None):
        """Loads the newest snapshot that every process has, if any (collective).

        The processes exchange the iterations of their snapshot files and
        load the newest one common to all, so that they resume from the
        same state. With ``optimizer`` (the multi-node optimizer), rank 0's
        parameters are then broadcast, and the optimizer is told that the
        processes are in sync, so that its next update is a real one.

        Args:
            trainer (~chainer.training.Trainer): Trainer to load into.
            optimizer: The multi-node optimizer of the trainer.
            path (str): Directory of the snapshots, if no ``path`` was given
                at creation; ``trainer.out`` by default.

        Returns:
            int: The iteration loaded, or ``None`` when there was none.
        """
        if self.path is None:
            self._ensure_path(trainer.out if path is None else path)
        iteration = self._newest_common()
        if iteration is None:
            return None
        serializers.load_npz(
            os.path.join(self.path, self._filename(iteration)), trainer
        )
        if optimizer is not None:
            self.comm.bcast_data(optimizer.target)
            mark = getattr(optimizer, "mark_synchronized", None)
            if mark is not None:
                mark()
        return iteration

    def get_stats(self):
        """Returns a summary of the time spent saving snapshots.

        Returns:
            str: Average, minimum and maximum duration of a save on this
            process, or a note that none was saved.
        """
        if not self._durations:
            return "No stats available"
        d = self._durations
        return (
            f"Snapshot duration stats (sec): avg={sum(d) / len(d):f}, "
            f"min={min(d):f}, max={max(d):f}, count={len(d)}"
        )

    def on_error(self, trainer, exc, tb):
        """Records that training failed, so that finalize skips the collection.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
            exc (Exception): The error.
            tb: Its traceback.
        """
        self._failed = True

    def finalize(self):
        """Collects old snapshots at the end of a training that succeeded."""
        if not self._failed and self.path is not None:
            self._gc()

    def _ensure_path(self, default):
        if self.path is None:
            self.path = default
            os.makedirs(self.path, exist_ok=True)

    def _filename(self, iteration):
        return f"{self.cp_name}.{self.comm.rank}.{iteration}"

    def _local_iterations(self):
        try:
            names = os.listdir(self.path)
        except FileNotFoundError:
            return []
        found = []
        for filename in names:
            match = self._pattern.match(filename)
            if match:
                found.append(int(match.group(1)))
        return sorted(found)

    def _common_iterations(self):
        local = self._local_iterations()
        everyone = self.comm.allgather_obj(local)
        common = set(everyone[0])
        for iterations in everyone[1:]:
            common &= set(iterations)
        return local, sorted(common)

    def _newest_common(self):
        _, common = self._common_iterations()
        return common[-1] if common else None

    def _gc(self):
        self._saves_since_gc = 0
        local, common = self._common_iterations()
        if not common:
            return
        keep = set(common[-self.cp_interval :])
        newest = common[-1]
        for iteration in local:
            if iteration in keep or iteration > newest:
                continue
            filename = self._filename(iteration)
            try:
                os.remove(os.path.join(self.path, filename))
            except FileNotFoundError:
                pass
            if filename in self.files:
                self.files.remove(filename)
