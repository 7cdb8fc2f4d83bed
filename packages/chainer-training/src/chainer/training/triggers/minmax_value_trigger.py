"""Triggers firing when a monitored value reaches a new best."""

from __future__ import annotations

import operator

from chainer import reporter as reporter_module
from chainer.training import trigger as trigger_module


def _host_float(value):
    array = getattr(value, "array", value)  # a Variable's array
    get = getattr(array, "get", None)  # a device array: copy to host
    if get is not None and not isinstance(array, (int, float)):
        array = get()
    return float(array)


class BestValueTrigger:
    """Trigger fired when the value of a key becomes the best so far.

    Between two checks (the iterations its interval ``trigger`` accepts) it
    accumulates the observations of ``key``; at a check it takes their mean
    and fires if that mean is better than the best mean seen at earlier
    checks, according to ``compare``. The first check always fires.

    Args:
        key (str): Key of the observation to monitor, e.g.
            ``'validation/main/loss'``.
        compare (callable): ``compare(best, new)`` returns ``True`` if
            ``new`` is better than ``best``.
        trigger: Trigger deciding when to check; ``(1, 'epoch')`` by
            default (see :func:`~chainer.training.get_trigger`).
    """

    def __init__(self, key, compare, trigger=(1, "epoch")):
        if not isinstance(key, str):
            raise TypeError(f"key must be a str observation key; got {key!r}")
        if not callable(compare):
            raise TypeError(f"compare must be callable; got {compare!r}")
        self._key = key
        self._best_value = None
        self._interval_trigger = trigger_module.get_trigger(trigger)
        self._compare = compare
        self._init_summary()

    def __call__(self, trainer):
        """Decides whether the extension should be called on this iteration.

        Args:
            trainer (~chainer.training.Trainer): Trainer object that this
                trigger is associated with. Its ``observation`` is read.

        Returns:
            bool: ``True`` if the corresponding extension should be invoked
            in this iteration.
        """
        key = self._key
        observation = trainer.observation
        if key in observation:
            self._summary.add({key: observation[key]})
        if not self._interval_trigger(trainer):
            return False

        stats = self._summary.compute_mean()
        if key not in stats:
            raise KeyError(
                f"{type(self).__name__}: key {key!r} was not observed since the "
                f"last check; keys in the current observation: {sorted(observation)}"
            )
        value = _host_float(stats[key])
        self._init_summary()
        if self._best_value is None or self._compare(self._best_value, value):
            self._best_value = value
            return True
        return False

    def _init_summary(self):
        self._summary = reporter_module.DictSummary()

    def serialize(self, serializer):
        """Serializes the interval trigger, the summary and the best value.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        if hasattr(self._interval_trigger, "serialize"):
            self._interval_trigger.serialize(serializer["interval_trigger"])
        self._summary.serialize(serializer["summary"])
        best = serializer("best_value", self._best_value)
        self._best_value = None if best is None else _host_float(best)


class MaxValueTrigger(BestValueTrigger):
    """Trigger fired when the value of a key becomes the maximum so far.

    See :class:`BestValueTrigger`; typical use is saving the model with the
    best validation accuracy.

    Args:
        key (str): Key of the observation to monitor.
        trigger: Trigger deciding when to check; ``(1, 'epoch')`` by
            default.
    """

    def __init__(self, key, trigger=(1, "epoch")):
        super().__init__(key, operator.lt, trigger)


class MinValueTrigger(BestValueTrigger):
    """Trigger fired when the value of a key becomes the minimum so far.

    See :class:`BestValueTrigger`; typical use is saving the model with the
    lowest validation loss.

    Args:
        key (str): Key of the observation to monitor.
        trigger: Trigger deciding when to check; ``(1, 'epoch')`` by
            default.
    """

    def __init__(self, key, trigger=(1, "epoch")):
        super().__init__(key, operator.gt, trigger)
