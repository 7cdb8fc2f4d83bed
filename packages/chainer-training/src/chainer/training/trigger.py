"""Trigger factory: :func:`get_trigger` turns a trigger spec into a callable."""

from __future__ import annotations

from chainer.training.triggers import interval_trigger

IntervalTrigger = interval_trigger.IntervalTrigger


def _never_fire_trigger(trainer):
    return False


def get_trigger(trigger):
    """Gets a trigger object.

    A trigger is a callable taking the trainer and returning a bool: ``True``
    fires the event it guards (an extension call, the end of training).

    Args:
        trigger: A callable is returned as it is; ``None`` gives a trigger
            that never fires; a ``(period, unit)`` pair, with unit
            ``'epoch'`` or ``'iteration'``, gives an
            :class:`~chainer.training.triggers.IntervalTrigger`.

    Returns:
        callable: The trigger object.

    Example:
        >>> from chainer import training
        >>> training.get_trigger((2, 'epoch')).get_training_length()
        (2, 'epoch')
    """
    if callable(trigger):
        return trigger
    if trigger is None:
        return _never_fire_trigger
    if isinstance(trigger, (str, bytes)) or not hasattr(trigger, "__len__"):
        raise TypeError(
            "a trigger must be a callable, None or a (period, unit) pair such as "
            f"(1, 'epoch'); got {trigger!r}"
        )
    if len(trigger) != 2:
        raise TypeError(
            "a trigger given as a sequence must be a (period, unit) pair such as "
            f"(1, 'epoch'); got {trigger!r}"
        )
    return IntervalTrigger(*trigger)
