"""Triggers: callables deciding when an extension runs or training stops."""

from chainer.utils import lazy_namespace as _lazy_namespace

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

__all__ = sorted(_NAMES)
__getattr__, __dir__ = _lazy_namespace.attach(__name__, _NAMES)
