"""Updaters: one training iteration (read a batch, compute the loss, update)."""

from chainer.training import _lazy

_NAMES = {
    "StandardUpdater": "standard_updater",
    "ParallelUpdater": "parallel_updater",
    "MultiprocessParallelUpdater": "multiprocess_parallel_updater",
}

__getattr__, __dir__, __all__ = _lazy.attach(__name__, _NAMES)
