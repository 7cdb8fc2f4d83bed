"""Updaters: one training iteration (read a batch, compute the loss, update)."""

from chainer.utils import lazy_namespace as _lazy_namespace

_NAMES = {
    "StandardUpdater": "standard_updater",
    "ParallelUpdater": "parallel_updater",
    "MultiprocessParallelUpdater": "multiprocess_parallel_updater",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = _lazy_namespace.attach(__name__, _NAMES)
