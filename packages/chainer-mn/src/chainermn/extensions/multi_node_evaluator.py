"""Evaluators that combine the results of every process."""

from __future__ import annotations

import copy

from chainer import backend
from chainer import configuration
from chainer import function
from chainer.dataset import convert
from chainer.training import extension


def create_multi_node_evaluator(actual_evaluator, communicator):
    """Makes an evaluator report the mean of every process's results.

    Each process evaluates its own part of the validation set (scatter it
    with :func:`chainermn.scatter_dataset`) with ``actual_evaluator``; then
    the result dictionaries are exchanged and each value is replaced by its
    mean over the processes, on every process. With parts of equal length
    (the default of ``scatter_dataset``) this is the mean over the whole
    set. It works with :class:`~chainer.training.extensions.Evaluator` and
    its subclasses; the evaluator's ``evaluate`` method is wrapped in place
    and the same object is returned.

    Every process must evaluate at the same times (same trigger), and
    report the same keys; different keys raise ``ValueError`` naming them.

    Args:
        actual_evaluator (~chainer.training.extensions.Evaluator): The
            evaluator to wrap.
        communicator (~chainermn.communicators.CommunicatorBase):
            Communicator.

    Returns:
        The evaluator, now averaging over processes.
    """
    local_evaluate = actual_evaluator.evaluate

    def evaluate():
        return _mean_over_processes(local_evaluate(), communicator)

    actual_evaluator.evaluate = evaluate
    return actual_evaluator


def _mean_over_processes(result, communicator):
    results = communicator.allgather_obj(dict(result))
    keys = sorted(results[0])
    for rank, other in enumerate(results):
        if sorted(other) != keys:
            raise ValueError(
                "the processes' evaluations reported different keys: rank 0 "
                f"{keys}, rank {rank} {sorted(other)}"
            )
    size = len(results)
    mean = {}
    for key in keys:
        total = results[0][key]
        for other in results[1:]:
            total = total + other[key]
        mean[key] = total / size
    return mean


class GenericMultiNodeEvaluator(extension.Extension):
    """Evaluator for results that cannot simply be averaged over processes.

    Every process runs :meth:`calc_local` on each batch of its own iterator;
    the root process gathers the values (batch by batch, until every
    iterator is exhausted, so parts may differ in length) and passes the
    list of all of them to :meth:`aggregate`, once. Override the two methods
    for metrics such as a precision over the whole set; report from
    ``aggregate`` (``chainer.reporter.report``) to see them in the logs.

    Args:
        comm (~chainermn.communicators.CommunicatorBase): Communicator.
        iterator: Iterator over this process's validation part; it must not
            repeat.
        target (callable): Model (or function) evaluated on each batch by
            the default :meth:`calc_local`.
        device: Device to which the converter sends the batches.
        converter: Converter from a batch to the arguments of
            :meth:`calc_local`.
        root (int): Rank of the process that aggregates.
        progress_hook (callable): Keyword only. Called with each batch on
            the root, to show progress.
    """

    trigger = 1, "epoch"
    default_name = "validation"
    priority = extension.PRIORITY_WRITER
    name = None

    def __init__(
        self,
        comm,
        iterator,
        target,
        device=None,
        converter=convert.concat_examples,
        root=0,
        **kwargs,
    ):
        progress_hook = kwargs.pop("progress_hook", None)
        if kwargs:
            raise TypeError(
                "GenericMultiNodeEvaluator() got unexpected keyword argument(s) "
                + ", ".join(repr(k) for k in kwargs)
            )
        if getattr(iterator, "repeat", False) is True:
            raise ValueError(
                "the iterator of GenericMultiNodeEvaluator repeats forever "
                "(repeat=True); create it with repeat=False"
            )
        self.comm = comm
        self.iterator = iterator
        self.target = target
        self.device = None if device is None else backend.get_device(device)
        self.converter = converter
        self.root = root
        self._progress_hook = progress_hook

    def __call__(self, trainer=None):
        """Evaluates on every process and aggregates on the root (collective).

        Args:
            trainer (~chainer.training.Trainer): The trainer, if any.

        Returns:
            What :meth:`aggregate` returns on the root; ``None`` elsewhere.
        """
        if hasattr(self.iterator, "reset"):
            self.iterator.reset()
            it = self.iterator
        else:
            it = copy.copy(self.iterator)
        gathered = []
        for values in self._evaluate_local(it):
            gathered.extend(values)
        if self.comm.rank != self.root:
            return None
        return self.aggregate(gathered)

    def calc_local(self, *args, **kwargs):
        """Computes the local value of one batch (override it).

        Args:
            *args: The converted batch, when the converter gives a tuple (or
                one array).
            **kwargs: The converted batch, when the converter gives a dict.

        Returns:
            A picklable value other than ``None``; by default what the
            target returns.
        """
        return self.target(*args, **kwargs)

    def aggregate(self, results):
        """Combines the values of every process (override it); root only.

        Args:
            results (list): The values of :meth:`calc_local` of all batches
                of all processes.

        Returns:
            The aggregated result (by default ``results`` itself).
        """
        return results

    def _evaluate_local(self, it):
        # One gather per batch: the root yields each round's values, and the
        # loop ends once every process has run out of batches.
        while True:
            value = None
            try:
                batch = next(it)
            except StopIteration:
                batch = None
            if batch is not None:
                value = self._calc_batch(batch)
                if value is None:
                    raise ValueError("calc_local() must not return None")
                if self.comm.rank == self.root and self._progress_hook:
                    self._progress_hook(batch)
            values = self.comm.gather_obj(value, root=self.root)
            done = None
            if self.comm.rank == self.root:
                done = all(v is None for v in values)
                yield [v for v in values if v is not None]
            if self.comm.bcast_obj(done, root=self.root):
                return

    def _calc_batch(self, batch):
        if isinstance(self.converter, convert.Converter) or self.device is not None:
            in_arrays = self.converter(batch, self.device)
        else:
            in_arrays = self.converter(batch)
        with function.no_backprop_mode(), configuration.using_config("train", False):
            if isinstance(in_arrays, tuple):
                return self.calc_local(*in_arrays)
            if isinstance(in_arrays, dict):
                return self.calc_local(**in_arrays)
            return self.calc_local(in_arrays)
