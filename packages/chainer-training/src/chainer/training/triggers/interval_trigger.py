"""Trigger firing at a fixed interval of iterations or epochs."""

from __future__ import annotations

import numbers
import warnings

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
    multiple of ``N`` (``N`` may be fractional, e.g. ``0.5``). The trigger
    remembers the iteration and epoch detail of its previous call, so it
    fires when a multiple was crossed since then, even when it is not called
    on every iteration. Snapshots keep that state, so a trainer resumed from
    one fires exactly where an uninterrupted one would.

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
        # The counters at this trigger's previous call; a negative value
        # (after loading a snapshot that lacks them) means unknown.
        self._previous_iteration = 0
        self._previous_epoch_detail = 0.0

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
        if self.unit == "epoch":
            current = updater.epoch_detail
            previous = self._previous_epoch_detail
            if previous < 0:
                previous = _updater_previous_epoch_detail(updater)
        else:
            current = updater.iteration
            previous = self._previous_iteration
            if previous < 0:
                previous = current - 1
        _remember(self, updater)
        return previous // period != current // period

    def get_training_length(self):
        """Returns the interval as a ``(period, unit)`` pair.

        Progress bars use it when this trigger is the stop trigger.

        Returns:
            tuple: ``(period, unit)``.
        """
        return self.period, self.unit

    def serialize(self, serializer):
        """Serializes the counters seen at the previous call.

        A snapshot written without them (by an old version) loads with a
        warning; the trigger then guesses them from the updater, which is
        right when it is called on every iteration.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        _serialize_previous(self, serializer, "IntervalTrigger")

    def __str__(self):
        return f"<IntervalTrigger: period: {self.period}, unit: {self.unit}>"

    __repr__ = __str__


def _updater_previous_epoch_detail(updater):
    previous = getattr(updater, "previous_epoch_detail", None)
    # None: no update has run yet, so the training is at epoch 0.
    return 0.0 if previous is None else previous


def _remember(trigger, updater):
    trigger._previous_iteration = updater.iteration
    if hasattr(updater, "epoch_detail"):
        trigger._previous_epoch_detail = updater.epoch_detail


def _serialize_previous(trigger, serializer, name):
    # Shared by the triggers that keep the counters of their previous call.
    try:
        trigger._previous_iteration = int(
            serializer("previous_iteration", trigger._previous_iteration)
        )
    except KeyError:
        warnings.warn(
            f"the snapshot has no previous iteration for {name}; it guesses "
            "it from the current iteration, which is wrong if the trigger "
            "is not called on every iteration",
            UserWarning,
            stacklevel=3,
        )
        trigger._previous_iteration = -1
    try:
        trigger._previous_epoch_detail = float(
            serializer("previous_epoch_detail", trigger._previous_epoch_detail)
        )
    except KeyError:
        warnings.warn(
            f"the snapshot has no previous epoch detail for {name}; it uses "
            "the updater's previous_epoch_detail, which is wrong if the "
            "trigger is not called on every iteration",
            UserWarning,
            stacklevel=3,
        )
        trigger._previous_epoch_detail = -1.0
