"""Training loop abstractions: :class:`Trainer`, updaters, triggers and extensions.

Provided by the ``chainer-training`` distribution. Names are resolved at
first use (see :mod:`chainer.utils.lazy_namespace`).
"""

from chainer.utils import lazy_namespace as _lazy_namespace

PRIORITY_WRITER = 300
PRIORITY_EDITOR = 200
PRIORITY_READER = 100

_NAMES = {
    "Extension": "extension",
    "make_extension": "extension",
    "Trainer": "trainer",
    "Updater": "updater",
    "StandardUpdater": "updaters.standard_updater",
    "ParallelUpdater": "updaters.parallel_updater",
    "IntervalTrigger": "triggers.interval_trigger",
    "get_trigger": "trigger",
}

__getattr__, __dir__ = _lazy_namespace.attach(
    __name__,
    _NAMES,
    (
        "extension",
        "extensions",
        "trainer",
        "trigger",
        "triggers",
        "updater",
        "updaters",
        "util",
    ),
)
__all__ = ["PRIORITY_EDITOR", "PRIORITY_READER", "PRIORITY_WRITER", *sorted(_NAMES)]
