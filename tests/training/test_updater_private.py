"""``chainer.training._updater``: Chainer 7's private home of ``Updater``."""

from chainer import training
from chainer.training import _updater


def test_updater_is_reexported():
    assert _updater.Updater is training.Updater
    assert issubclass(training.updaters.StandardUpdater, _updater.Updater)
