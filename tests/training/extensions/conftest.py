"""Fixtures shared by the tests of the trainer extensions."""

import pytest

import chainer
from chainer import serializers
from chainer import testing
from chainer import training


class _Optimizer:
    # An optimizer stand-in: a plain ``lr`` attribute, no hyperparam.
    def __init__(self, lr=1.0):
        self.lr = lr


@pytest.fixture
def make_optimizer():
    """Factory of optimizer stand-ins: ``make_optimizer(lr=1.0)``."""
    return _Optimizer


@pytest.fixture
def mock_trainer(tmp_path):
    """``mock_trainer(stop, iter_per_epoch=10, values=None, out=None)``.

    A trainer with a mock updater (see
    :func:`chainer.testing.get_trainer_with_mock_updater`) writing into
    ``out`` (``tmp_path`` by default). With ``values``, an extension of
    writer priority reports ``values(iteration)`` (a dict) each iteration.
    """

    def make(stop, iter_per_epoch=10, values=None, out=None):
        trainer = testing.get_trainer_with_mock_updater(stop, iter_per_epoch)
        trainer.out = str(tmp_path if out is None else out)
        if values is not None:

            @training.make_extension(priority=training.PRIORITY_WRITER)
            def report(trainer):
                chainer.report(values(trainer.updater.iteration))

            trainer.extend(report)
        return trainer

    return make


@pytest.fixture
def shift_trainer(mock_trainer):
    """Factory of mock-updater trainers: ``shift_trainer(optimizer, stop=5)``.

    ``optimizer`` is the updater's ``'main'`` one; the trainer stops after
    ``stop`` iterations and writes into ``tmp_path``.
    """

    def make(optimizer, stop=5):
        trainer = mock_trainer((stop, "iteration"))
        trainer.updater.get_optimizer = {"main": optimizer}.__getitem__
        return trainer

    return make


@pytest.fixture
def run_shift(shift_trainer):
    """``run_shift(ext, optimizer, n)``: the ``lr`` values of ``n`` calls.

    The extension is initialized first; the list starts with the value it
    set then and holds ``n + 1`` values.
    """

    def run(ext, optimizer, n):
        trainer = shift_trainer(optimizer)
        ext.initialize(trainer)
        values = [optimizer.lr]
        for _ in range(n):
            ext(trainer)
            values.append(optimizer.lr)
        return values

    return run


@pytest.fixture
def roundtrip():
    """``roundtrip(src, dst)``: serializes ``src`` and loads it into ``dst``."""

    def copy_state(src, dst):
        s = serializers.DictionarySerializer()
        src.serialize(s)
        dst.serialize(serializers.NpzDeserializer(s.target))

    return copy_state
