"""Interface of updaters (``chainer.training.Updater``).

For code written against old Chainer versions this module also exposes
:class:`~chainer.training.updaters.StandardUpdater` and
:class:`~chainer.training.updaters.ParallelUpdater`, imported on first use.
"""

from __future__ import annotations

import importlib

_MOVED = {
    "StandardUpdater": "chainer.training.updaters.standard_updater",
    "ParallelUpdater": "chainer.training.updaters.parallel_updater",
}


class Updater:
    """Interface of updater objects for trainers.

    An updater performs one training iteration per :meth:`update` call and
    owns the optimizers (and usually the dataset iterators) it uses.
    :class:`~chainer.training.updaters.StandardUpdater` is the standard
    implementation; custom updaters implement the methods below.
    """

    def connect_trainer(self, trainer):
        """Connects the updater to the trainer that will call it.

        Called at the end of :class:`~chainer.training.Trainer`'s
        initialization, typically to register more observers to its
        reporter. The default implementation does nothing.

        Args:
            trainer (~chainer.training.Trainer): Trainer object to which the
                updater is registered.
        """

    def finalize(self):
        """Finalizes the updater object.

        Called at the end of the training loop; it should finalize each
        dataset iterator used by the updater.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement finalize()")

    def get_optimizer(self, name):
        """Gets the optimizer of a given name.

        Args:
            name (str): Name of the optimizer.

        Returns:
            ~chainer.Optimizer: The optimizer.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement get_optimizer(name)"
        )

    def get_all_optimizers(self):
        """Gets a dictionary of all optimizers for this updater.

        Returns:
            dict: Dictionary that maps names to optimizers.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement get_all_optimizers()"
        )

    def update(self):
        """Updates the parameters of the target models (one iteration)."""
        raise NotImplementedError(f"{type(self).__name__} must implement update()")

    def serialize(self, serializer):
        """Serializes the current state of the updater object.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement serialize(serializer)"
        )


def __getattr__(name):
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
