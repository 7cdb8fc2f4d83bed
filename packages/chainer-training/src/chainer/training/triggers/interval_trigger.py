"""Trigger firing at a fixed interval of iterations or epochs."""

from __future__ import annotations

import numbers

_UNITS = ("epoch", "iteration")


def _check_unit(unit):
    if not isinstance(unit, str) or unit not in _UNITS:
        raise ValueError(f"unknown trigger unit {unit!r}; use 'epoch' or 'iteration'")


def _check_period(period, what="period"):
    if isinstance(period, bool) or not isinstance(period, numbers.Real):
        raise TypeError(f"trigger {what} must be a number; got {period!r}")
    if not period > 0:
        raise ValueError(f"trigger {what} must be positive; got {period!r}")


class IntervalTrigger:
    """Trigger based on a fixed interval.

    It fires at every ``period`` iterations or epochs: an ``(N,
    'iteration')`` trigger fires at iterations ``N, 2N, ...`` and an ``(N,
    'epoch')`` trigger on the iteration where ``epoch_detail`` crosses a
    multiple of ``N`` (``N`` may be fractional, e.g. ``0.5``). The decision
    reads the updater's counters (``iteration``, ``epoch_detail`` and
    ``previous_epoch_detail``) and the epoch detail at the trigger's call on
    the previous iteration, which snapshots keep, so a trainer resumed from
    a snapshot fires exactly where an uninterrupted one would.

    Args:
        period (int or float): Length of the interval.
        unit (str): ``'epoch'`` or ``'iteration'``.

    Attributes:
        period: Length of the interval.
        unit (str): Unit of the interval.
    """

    def __init__(self, period, unit):
        _check_unit(unit)
        _check_period(period)
        self.period = period
        self.unit = unit
        # The epoch detail at this trigger's last call, and that iteration.
        self._previous_epoch_detail = 0.0
        self._previous_iteration = -1

    def __call__(self, trainer):
        """Decides whether the extension should be called on this iteration.

        Args:
            trainer (~chainer.training.Trainer): Trainer object that this
                trigger is associated with. Its updater's counters decide.

        Returns:
            bool: ``True`` if the corresponding extension should be invoked
            in this iteration.
        """
        updater = trainer.updater
        period = self.period
        if self.unit == "iteration":
            iteration = updater.iteration
            return iteration > 0 and (iteration - 1) // period != iteration // period
        epoch_detail = updater.epoch_detail
        previous = getattr(updater, "previous_epoch_detail", None)
        # NOTE: an updater that reads its iterator several times per update
        # (truncated BPTT) reports the detail before its last read only, so
        # the detail seen on the previous iteration, where known, wins.
        if previous is None or self._previous_iteration == updater.iteration - 1:
            previous = self._previous_epoch_detail
        self._previous_epoch_detail = epoch_detail
        self._previous_iteration = updater.iteration
        return previous // period != epoch_detail // period

    def get_training_length(self):
        """Returns the interval as a ``(period, unit)`` pair.

        Progress bars use it when this trigger is the stop trigger.

        Returns:
            tuple: ``(period, unit)``.
        """
        return self.period, self.unit

    def serialize(self, serializer):
        """Serializes the fallback state of the trigger.

        The trigger remembers the epoch detail and iteration of its last
        call; without them (a snapshot that lacks the entries keeps the
        current values) it reads the updater's ``previous_epoch_detail``.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        try:
            self._previous_epoch_detail = float(
                serializer("previous_epoch_detail", self._previous_epoch_detail)
            )
            self._previous_iteration = int(
                serializer("previous_iteration", self._previous_iteration)
            )
        except KeyError:
            pass

    def __str__(self):
        return f"<IntervalTrigger: period: {self.period}, unit: {self.unit}>"

    __repr__ = __str__
