"""Trigger firing at a fixed interval of wall-clock time."""

from __future__ import annotations

import numbers


class TimeTrigger:
    """Trigger that fires at a fixed interval of training time.

    It reads :attr:`Trainer.elapsed_time <chainer.training.Trainer.elapsed_time>`
    and fires on the first call after each multiple of ``period`` seconds.
    If several periods passed between two calls (a slow iteration), it fires
    once and waits for the next multiple still ahead.

    Args:
        period (float): Interval in seconds.
    """

    def __init__(self, period):
        if isinstance(period, bool) or not isinstance(period, numbers.Real):
            raise TypeError(f"TimeTrigger period must be a number; got {period!r}")
        if not period > 0:
            raise ValueError(f"TimeTrigger period must be positive; got {period!r}")
        self._period = period
        self._next_time = period

    def __call__(self, trainer):
        """Decides whether the extension should be called on this iteration.

        Args:
            trainer (~chainer.training.Trainer): Trainer object that this
                trigger is associated with.

        Returns:
            bool: ``True`` if a period boundary was passed since the last
            firing.
        """
        elapsed = trainer.elapsed_time
        if elapsed <= self._next_time:
            return False
        periods = (elapsed - self._next_time) // self._period + 1
        self._next_time += periods * self._period
        return True

    def serialize(self, serializer):
        """Serializes the time of the next firing.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        self._next_time = float(serializer("next_time", float(self._next_time)))
