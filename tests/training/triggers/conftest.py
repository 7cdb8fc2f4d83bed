"""Fixtures shared by the tests of the triggers."""

import pytest

from chainer import testing


@pytest.fixture
def run_trigger():
    """``run_trigger(trigger, values, key=..., iter_per_epoch=1, trainer=None)``.

    Calls ``trigger`` once per iteration of a mock-updater trainer, with the
    observation ``{key: value}`` for each value (``None``: an empty
    observation), and returns the list of its answers and the trainer. A
    given ``trainer`` goes on from where it is.
    """

    def run(trigger, values, key="main/loss", iter_per_epoch=1, trainer=None):
        if trainer is None:
            trainer = testing.get_trainer_with_mock_updater(
                (len(values), "iteration"), iter_per_epoch=iter_per_epoch
            )
        fired = []
        for value in values:
            trainer.updater.update()
            trainer.observation = {} if value is None else {key: value}
            fired.append(trigger(trainer))
        return fired, trainer

    return run
