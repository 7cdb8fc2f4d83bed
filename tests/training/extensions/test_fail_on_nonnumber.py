import numpy
import pytest

import chainer.links as L
from chainer import iterators
from chainer import optimizers
from chainer import training
from chainer.training import extensions


def _trainer(tmp_path, model, stop=(4, "iteration")):
    rng = numpy.random.RandomState(0)
    data = [(rng.randn(3).astype(numpy.float32), numpy.int32(i % 2)) for i in range(8)]
    optimizer = optimizers.SGD(0.1).setup(model)
    it = iterators.SerialIterator(data, 4)
    updater = training.updaters.StandardUpdater(it, optimizer)
    return training.Trainer(updater, stop, out=str(tmp_path))


def test_finite_parameters_pass(tmp_path):
    trainer = _trainer(tmp_path, L.Classifier(L.Linear(3, 2)))
    trainer.extend(extensions.FailOnNonNumber())
    trainer.run()
    assert trainer.updater.iteration == 4


@pytest.mark.parametrize("bad", [numpy.nan, numpy.inf, -numpy.inf])
def test_non_finite_parameter_stops_training(tmp_path, bad):
    model = L.Classifier(L.Linear(3, 2))
    trainer = _trainer(tmp_path, model)

    @training.make_extension(priority=training.PRIORITY_WRITER)
    def diverge(trainer):
        if trainer.updater.iteration == 2:
            model.predictor.b.array[1] = bad

    trainer.extend(diverge)
    trainer.extend(extensions.FailOnNonNumber())
    with pytest.raises(RuntimeError, match="'/predictor/b'.*'main'"):
        trainer.run(show_loop_exception_msg=False)
    assert trainer.updater.iteration == 2


def test_uninitialized_parameters_are_skipped(tmp_path):
    model = L.Classifier(L.Linear(3, 2))
    model.predictor.add_param("extra")  # never initialized
    trainer = _trainer(tmp_path, model, stop=(1, "iteration"))
    trainer.extend(extensions.FailOnNonNumber())
    trainer.run()


def test_default_attributes():
    ext = extensions.FailOnNonNumber()
    assert ext.trigger == (1, "iteration")
    assert ext.priority == training.PRIORITY_READER
    assert isinstance(ext, training.Extension)
