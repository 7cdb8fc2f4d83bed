import pytest

from chainer import training
from chainer.training import updater


def test_base_updater_is_abstract():
    u = training.Updater()
    assert u.connect_trainer(None) is None
    for call in (
        u.finalize,
        u.update,
        u.get_all_optimizers,
        lambda: u.get_optimizer("main"),
        lambda: u.serialize(None),
    ):
        with pytest.raises(NotImplementedError, match="Updater must implement"):
            call()


def test_old_import_paths():
    from chainer.training.updaters import standard_updater

    assert updater.StandardUpdater is standard_updater.StandardUpdater
    assert training.StandardUpdater is standard_updater.StandardUpdater
    assert updater.Updater is training.Updater


def test_old_import_path_parallel_updater():
    pytest.importorskip("chainer.training.updaters.parallel_updater")
    assert updater.ParallelUpdater is training.updaters.ParallelUpdater


def test_unknown_attribute():
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        updater.Nope  # noqa: B018
