"""Aggregating an observed value over processes."""

from __future__ import annotations

import numpy

from chainer import backend
from chainer import reporter
from chainer import variable
from chainer.training import extension
from chainer.training import trigger as trigger_module


def _average_2d(histories):
    values = [numpy.asarray(v) for history in histories for v in history]
    if not values:
        return None
    return sum(values[1:], values[0]) / len(values)


def _to_host(value):
    if isinstance(value, variable.Variable):
        value = value.array
    if isinstance(value, (int, float, numpy.ndarray, numpy.generic)):
        return value
    return backend.CpuDevice().send(value)


class ObservationAggregator(extension.Extension):
    """Trainer extension reporting an observation aggregated over processes.

    At every iteration it records this process's value of
    ``original_key`` in the trainer's observation; when ``comm_trigger``
    fires, the processes exchange their recorded values and every process
    reports ``aggregator(values)`` under ``aggregated_key``, where
    ``values`` is a list (one entry per process, in rank order) of the lists
    of values recorded since the last exchange. The default aggregator is
    the mean of all values, so that with ``'main/loss'`` the log shows the
    loss over the whole job rather than rank 0's.

    Register it before the reporting extensions (its priority is
    ``PRIORITY_EDITOR``)::

        trainer.extend(chainermn.extensions.ObservationAggregator(
            comm, 'main/loss', 'main/loss_all'))

    Args:
        comm (~chainermn.communicators.CommunicatorBase): Communicator.
        original_key (str): Key of the observed value.
        aggregated_key (str): Key of the aggregated value; ``original_key``
            (overwriting it) by default.
        comm_trigger: Keyword only. Trigger of the exchange, e.g.
            ``(10, 'iteration')``.
        aggregator (callable): Keyword only. Function from the list of
            per-process lists of values to the reported value.
    """

    trigger = 1, "iteration"
    priority = extension.PRIORITY_EDITOR
    name = None

    def __init__(
        self,
        comm,
        original_key,
        aggregated_key=None,
        *,
        comm_trigger=(1, "iteration"),
        aggregator=None,
    ):
        self.comm = comm
        self.original_key = original_key
        self.aggregated_key = original_key if aggregated_key is None else aggregated_key
        self.comm_trigger = trigger_module.get_trigger(comm_trigger)
        self.aggregator = _average_2d if aggregator is None else aggregator
        self.observation_history = []

    def __call__(self, trainer):
        """Records the value and, when ``comm_trigger`` fires, reports the aggregate.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        observation = trainer.observation
        if self.original_key in observation:
            self.observation_history.append(_to_host(observation[self.original_key]))
        if not self.comm_trigger(trainer):
            return
        histories = self.comm.allgather_obj(self.observation_history)
        self.observation_history = []
        value = self.aggregator(histories)
        if value is not None:
            reporter.report({self.aggregated_key: value})
