import numpy

import chainer
import chainer.links as L
from chainer import iterators
from chainer import optimizers
from chainer import training
from chainer.training import extensions


def test_observed_variables_are_unchained_after_other_extensions(tmp_path):
    rng = numpy.random.RandomState(0)
    data = [(rng.randn(3).astype(numpy.float32), numpy.int32(i % 2)) for i in range(8)]
    model = L.Classifier(L.Linear(3, 2))
    optimizer = optimizers.SGD(0.1).setup(model)
    updater = training.updaters.StandardUpdater(
        iterators.SerialIterator(data, 4), optimizer
    )
    trainer = training.Trainer(updater, (2, "iteration"), out=str(tmp_path))
    before, after = [], []

    @training.make_extension(priority=training.PRIORITY_READER)
    def reader(trainer):
        before.append(trainer.observation["main/loss"].creator)

    @training.make_extension(priority=-1)
    def last(trainer):
        after.append(trainer.observation["main/loss"].creator)

    trainer.extend(extensions.unchain_variables())
    trainer.extend(reader)
    trainer.extend(last)
    with chainer.using_config("keep_graph_on_report", True):
        trainer.run()
    assert all(c is not None for c in before)
    assert after == [None, None]


def test_non_variables_are_left_alone():
    class Trainer:
        observation = {"x": 1.0, "y": numpy.ones(2)}

    extensions.unchain_variables()(Trainer())
    assert Trainer.observation["x"] == 1.0


def test_default_attributes():
    ext = extensions.unchain_variables()
    assert ext.priority == 0
    assert ext.trigger == (1, "iteration")
    assert ext.default_name == "unchain_variables"


def test_chainer7_module_path():
    from chainer.training.extensions import variable_unchain

    assert variable_unchain.unchain_variables is extensions.unchain_variables
