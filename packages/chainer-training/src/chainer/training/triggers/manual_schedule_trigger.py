"""Trigger firing at given points of the training."""

from __future__ import annotations

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
        # The epoch detail at this trigger's last call, and that iteration.
        self._previous_epoch_detail = 0.0
        self._previous_iteration = -1

    def __call__(self, trainer):
        """Decides whether the extension should be called on this iteration.

        Args:
            trainer (~chainer.training.Trainer): Trainer object that this
                trigger is associated with.

        Returns:
            bool: ``True`` if the corresponding extension should be invoked
            in this iteration.
        """
        updater = trainer.updater
        if self.unit == "iteration":
            current = updater.iteration
            previous = current - 1
            if current == 0:
                return False
        else:
            current = updater.epoch_detail
            previous = getattr(updater, "previous_epoch_detail", None)
            # NOTE: an updater that reads its iterator several times per
            # update (truncated BPTT) reports the detail before its last read
            # only, so the detail seen on the previous iteration wins.
            if previous is None or self._previous_iteration == updater.iteration - 1:
                previous = self._previous_epoch_detail
            self._previous_epoch_detail = current
            self._previous_iteration = updater.iteration
        fire = any(previous < p <= current for p in self.points)
        if current >= self._last:
            self.finished = True
        return fire

    def serialize(self, serializer):
        """Serializes the state of the trigger (``finished``).

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        try:
            self.finished = bool(serializer("finished", self.finished))
            self._previous_epoch_detail = float(
                serializer("previous_epoch_detail", self._previous_epoch_detail)
            )
            self._previous_iteration = int(
                serializer("previous_iteration", self._previous_iteration)
            )
        except KeyError:
            pass  # a snapshot written without these entries keeps the state
