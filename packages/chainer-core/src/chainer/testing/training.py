"""A Trainer driven by a mock updater, for extension tests."""

from __future__ import annotations

import importlib
import numbers
import unittest.mock

from chainer.utils import install_hint


def get_trainer_with_mock_updater(
    stop_trigger=(10, "iteration"), iter_per_epoch=10, extensions=None
):
    """Returns a :class:`~chainer.training.Trainer` whose updater is a mock.

    Each update only advances the iteration and epoch counters, so trainer
    extensions can be tested without a model.

    Args:
        stop_trigger: Stop trigger of the trainer.
        iter_per_epoch (int or float): Iterations per simulated epoch; a
            fraction simulates epochs that end inside an iteration.
        extensions (list or None): Extensions given to the trainer.

    Returns:
        chainer.training.Trainer: The trainer.
    """
    if (
        isinstance(iter_per_epoch, bool)
        or not isinstance(iter_per_epoch, numbers.Real)
        or not iter_per_epoch > 0
    ):
        raise ValueError(
            f"iter_per_epoch must be a positive number, got {iter_per_epoch!r}"
        )
    try:
        training = importlib.import_module("chainer.training")
    except ModuleNotFoundError as e:
        if e.name not in ("chainer.training", "chainer"):
            raise
        raise RuntimeError(
            "get_trainer_with_mock_updater needs chainer.training, which is "
            "provided by the chainer-training distribution: "
            f"{install_hint.install_hint('chainer-training')}"
        ) from None
    if extensions is None:
        extensions = []
    updater = unittest.mock.Mock()
    updater.get_all_optimizers.return_value = {}
    updater.iteration = 0
    updater.epoch = 0
    updater.epoch_detail = 0
    updater.is_new_epoch = True
    updater.previous_epoch_detail = None

    def update():
        updater.update_core()
        updater.iteration += 1
        updater.epoch = updater.iteration // iter_per_epoch
        updater.epoch_detail = updater.iteration / iter_per_epoch
        updater.is_new_epoch = (
            updater.iteration - 1
        ) // iter_per_epoch != updater.epoch
        updater.previous_epoch_detail = (updater.iteration - 1) / iter_per_epoch

    updater.update = update
    return training.Trainer(updater, stop_trigger, extensions=extensions)
