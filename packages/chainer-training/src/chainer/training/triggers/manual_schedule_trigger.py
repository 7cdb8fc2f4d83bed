"""Trigger firing at given points of the training."""

from __future__ import annotations

import warnings

from chainer.training.triggers import interval_trigger


class ManualScheduleTrigger:
    """Trigger firing at specified iterations or epochs.

    It fires on the iteration where the training reaches one of the
    ``points``: an ``'iteration'`` point ``p`` fires at iteration ``p``, an
    ``'epoch'`` point on the iteration where ``epoch_detail`` passes it. As
    :class:`~chainer.training.triggers.IntervalTrigger`, it reads the
    updater's counters, so a resumed training fires at the same iterations.

    Args:
        points (int, float, or list of int or float): Points at which the
            trigger fires.
        unit (str): ``'epoch'`` or ``'iteration'``.

    Attributes:
        points (list): The points.
        unit (str): Their unit.
        finished (bool): ``True`` once the training passed the last point;
            the trainer then skips the ``initialize`` of the extension.
    """

    def __init__(self, points, unit):
        interval_trigger._check_unit(unit)
        points = list(points) if isinstance(points, (list, tuple)) else [points]
        if not points:
            raise ValueError("ManualScheduleTrigger needs at least one point")
        for point in points:
            interval_trigger._check_period(point, "point")
        self.points = points
        self.unit = unit
        self.finished = False
        self._last = max(points)
        # The counters at this trigger's previous call; a negative value
        # (after loading a snapshot that lacks them) means unknown.
        self._previous_iteration = 0
        self._previous_epoch_detail = 0.0

    def __call__(self, trainer):
        """Decides whether the extension should be called on this iteration.

        The trigger fires when one of the points was passed since its
        previous call, so it also works when it is not called on every
        iteration.

        Args:
            trainer (~chainer.training.Trainer): Trainer object that this
                trigger is associated with.

        Returns:
            bool: ``True`` if the corresponding extension should be invoked
            in this iteration.
        """
        updater = trainer.updater
        if self.unit == "epoch":
            current = updater.epoch_detail
            previous = self._previous_epoch_detail
            if previous < 0:
                previous = interval_trigger._updater_previous_epoch_detail(updater)
        else:
            current = updater.iteration
            previous = self._previous_iteration
            if previous < 0:
                previous = current - 1
        interval_trigger._remember(self, updater)
        if current >= self._last:
            self.finished = True
        return any(previous < p <= current for p in self.points)

    def serialize(self, serializer):
        """Serializes the state of the trigger.

        It keeps ``finished`` and the counters seen at the previous call. A
        snapshot written without them (by an old version) loads with a
        warning; the trigger then guesses them from the updater.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        interval_trigger._serialize_previous(self, serializer, "ManualScheduleTrigger")
        try:
            self.finished = bool(serializer("finished", self.finished))
        except KeyError:
            warnings.warn(
                "the snapshot has no finished flag for ManualScheduleTrigger; "
                "it is set again at the next call",
                UserWarning,
                stacklevel=2,
            )
