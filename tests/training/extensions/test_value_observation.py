import numpy
import pytest

import chainer.links as L
from chainer import iterators
from chainer import optimizers
from chainer import testing
from chainer import training
from chainer.training import extensions


def test_observe_value_records_into_the_observation():
    trainer = testing.get_trainer_with_mock_updater((4, "iteration"), 2)
    trainer.extend(
        extensions.observe_value("it", lambda trainer: trainer.updater.iteration)
    )
    seen = []

    @training.make_extension()
    def record(trainer):
        seen.append(trainer.observation.get("it"))

    trainer.extend(record)
    trainer.run()
    assert seen == [None, 2, None, 4]


def test_observe_value_attributes():
    ext = extensions.observe_value("x", lambda trainer: 1)
    assert ext.trigger == (1, "epoch")
    assert ext.priority == training.PRIORITY_WRITER
    assert ext.default_name == "_observe_value"


def test_observe_lr_with_a_real_optimizer(tmp_path):
    data = [(numpy.asarray(x, "f"), t) for x, t in [([0, 1], 0), ([1, 0], 1)] * 4]
    model = L.Classifier(L.Linear(2, 2))
    optimizer = optimizers.SGD(lr=0.05).setup(model)
    it = iterators.SerialIterator(data, 4)
    updater = training.updaters.StandardUpdater(it, optimizer)
    trainer = training.Trainer(updater, (2, "epoch"), out=str(tmp_path))
    trainer.extend(extensions.observe_lr())
    trainer.extend(extensions.observe_lr("main", "learning_rate"))

    @training.make_extension(trigger=(1, "epoch"))
    def halve(trainer):
        optimizer.lr /= 2

    trainer.extend(halve)
    log_report = extensions.LogReport(log_name=None)
    trainer.extend(log_report)
    trainer.run()
    assert [e["lr"] for e in log_report.log] == [0.05, 0.025]
    assert [e["learning_rate"] for e in log_report.log] == [0.05, 0.025]


def test_observe_lr_without_lr_is_a_clear_error():
    trainer = testing.get_trainer_with_mock_updater((1, "epoch"), 1)
    trainer.updater.get_optimizer = lambda name: object()
    trainer.extend(extensions.observe_lr())
    with pytest.raises(AttributeError, match="'main'.*no attribute 'lr'"):
        trainer.run(show_loop_exception_msg=False)


def test_bad_inputs():
    with pytest.raises(TypeError, match="observation_key"):
        extensions.observe_value(1, lambda trainer: 1)
    with pytest.raises(TypeError, match="target_func"):
        extensions.observe_value("x", 1)
