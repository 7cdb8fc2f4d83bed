"""Triggers: callables deciding when an extension runs or training stops."""

from chainer.training import _lazy

_NAMES = {
    "BestValueTrigger": "minmax_value_trigger",
    "MaxValueTrigger": "minmax_value_trigger",
    "MinValueTrigger": "minmax_value_trigger",
    "EarlyStoppingTrigger": "early_stopping_trigger",
    "IntervalTrigger": "interval_trigger",
    "ManualScheduleTrigger": "manual_schedule_trigger",
    "OnceTrigger": "once_trigger",
    "TimeTrigger": "time_trigger",
}

__getattr__, __dir__, __all__ = _lazy.attach(__name__, _NAMES)
