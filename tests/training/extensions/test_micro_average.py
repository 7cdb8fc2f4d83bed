import math

import numpy
import pytest

import chainer
from chainer import serializers
from chainer import testing
from chainer import training
from chainer.training import extensions


def _run(ext, values, stop=(2, "epoch"), iter_per_epoch=3, start=0):
    trainer = testing.get_trainer_with_mock_updater(stop, iter_per_epoch)
    trainer.updater.iteration = start

    @training.make_extension(priority=training.PRIORITY_WRITER)
    def report(trainer):
        chainer.report(values(trainer.updater.iteration))

    results = []

    @training.make_extension(priority=training.PRIORITY_READER)
    def record(trainer):
        results.append(trainer.observation.get("accuracy"))

    trainer.extend(report)
    trainer.extend(ext)
    trainer.extend(record)
    trainer.run()
    return results


def _values(i):
    # Batches of different sizes: a micro average differs from the mean of
    # the per-batch ratios.
    return {"correct": i, "total": 2 * i + 1}


def test_ratio_of_sums_at_each_trigger():
    ext = extensions.MicroAverage("correct", "total", "accuracy")
    results = _run(ext, _values)
    assert results == [
        None,
        None,
        pytest.approx((1 + 2 + 3) / (3 + 5 + 7)),
        None,
        None,
        pytest.approx((4 + 5 + 6) / (9 + 11 + 13)),
    ]


def test_variables_and_arrays_are_accepted():
    def values(i):
        return {
            "correct": chainer.Variable(numpy.array(i, dtype=numpy.float32)),
            "total": numpy.int64(2),
        }

    ext = extensions.MicroAverage("correct", "total", "accuracy", trigger=(1, "epoch"))
    results = _run(ext, values, stop=(1, "epoch"))
    assert results[-1] == pytest.approx(6 / 6)
    assert type(results[-1]) is float


def test_iterations_missing_a_key_are_skipped():
    def values(i):
        return {"correct": 1, "total": 1} if i % 2 else {"correct": 5}

    ext = extensions.MicroAverage(
        "correct", "total", "accuracy", trigger=(3, "iteration")
    )
    results = _run(ext, values, stop=(3, "iteration"))
    assert results[-1] == 1.0


def test_zero_denominator_gives_nan():
    ext = extensions.MicroAverage("correct", "total", "accuracy")
    results = _run(ext, lambda i: {"correct": 0, "total": 0}, stop=(1, "epoch"))
    assert math.isnan(results[-1])


def test_non_scalar_value_is_a_clear_error():
    ext = extensions.MicroAverage("correct", "total", "accuracy")
    with pytest.raises(TypeError, match="'correct'"):
        _run(ext, lambda i: {"correct": numpy.ones(2), "total": 1})


def test_resume_continues_the_sums():
    ext = extensions.MicroAverage("correct", "total", "accuracy")
    _run(ext, _values, stop=(2, "iteration"))
    target = {}
    serializers.DictionarySerializer(target).save(ext)
    resumed = extensions.MicroAverage("correct", "total", "accuracy")
    serializers.NpzDeserializer(target).load(resumed)
    results = _run(resumed, _values, stop=(3, "iteration"), start=2)
    assert results == [pytest.approx(6 / 15)]


def test_bad_inputs():
    with pytest.raises(TypeError, match="result_key"):
        extensions.MicroAverage("a", "b", None)
    with pytest.raises(ValueError, match="'epochs'"):
        extensions.MicroAverage("a", "b", "c", trigger=(1, "epochs"))


def test_default_attributes():
    ext = extensions.MicroAverage("a", "b", "c")
    assert ext.priority == training.PRIORITY_EDITOR
    assert ext.trigger == (1, "iteration")
