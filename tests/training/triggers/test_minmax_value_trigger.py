import functools

import numpy
import pytest

import chainer
from chainer import serializers
from chainer.training import triggers


@pytest.fixture
def run(run_trigger):
    """``run_trigger`` of ``'main/accuracy'`` values, two iterations an epoch."""
    return functools.partial(run_trigger, key="main/accuracy", iter_per_epoch=2)


def test_max_value_trigger_uses_interval_means(run):
    # Checks every 2 iterations (one epoch): means 0.5, 0.7, 0.6, 0.8.
    values = [0.4, 0.6, 0.7, 0.7, 0.9, 0.3, 0.8, 0.8]
    fired, _ = run(triggers.MaxValueTrigger("main/accuracy"), values)
    assert fired == [False, True, False, True, False, False, False, True]


def test_min_value_trigger(run):
    values = [3.0, 2.0, 1.0, 5.0, 0.5]
    trigger = triggers.MinValueTrigger("main/loss", trigger=(1, "iteration"))
    fired, _ = run(trigger, values, key="main/loss")
    assert fired == [True, True, True, False, True]


def test_best_value_trigger_with_custom_compare(run):
    def compare(best, new):
        return abs(new) < abs(best)

    trigger = triggers.BestValueTrigger("v", compare, trigger=(1, "iteration"))
    fired, _ = run(trigger, [-3.0, 2.0, -2.5, 1.0], key="v")
    assert fired == [True, True, False, True]


def test_values_may_be_variables_and_arrays(run):
    values = [
        chainer.Variable(numpy.array(0.1, dtype=numpy.float32)),
        numpy.float64(0.3),
        numpy.array(0.2, dtype=numpy.float32),
    ]
    trigger = triggers.MaxValueTrigger("main/accuracy", trigger=(1, "iteration"))
    fired, _ = run(trigger, values)
    assert fired == [True, True, False]


def test_missing_key_is_a_clear_error(run):
    trigger = triggers.MaxValueTrigger("validation/main/acuracy")
    with pytest.raises(KeyError, match="'validation/main/acuracy' was not observed"):
        run(trigger, [0.5, 0.6])


def test_iterations_without_the_key_are_skipped(run):
    values = [None, 0.5, None, 0.4]
    fired, _ = run(triggers.MaxValueTrigger("main/accuracy"), values)
    assert fired == [False, True, False, False]


def test_resume_keeps_summary_and_best(run):
    values = [0.4, 0.6, 0.7, 0.7, 0.9, 0.3, 0.8, 0.8]
    full, _ = run(triggers.MaxValueTrigger("main/accuracy"), values)
    trigger = triggers.MaxValueTrigger("main/accuracy")
    first, trainer = run(trigger, values[:5])
    saver = serializers.DictionarySerializer()
    saver.save(trigger)
    resumed = triggers.MaxValueTrigger("main/accuracy")
    serializers.NpzDeserializer(saver.target).load(resumed)
    rest, _ = run(resumed, values[5:], trainer=trainer)
    assert first + rest == full


def test_bad_arguments():
    with pytest.raises(TypeError, match="key must be a str"):
        triggers.MaxValueTrigger(3)
    with pytest.raises(TypeError, match="compare must be callable"):
        triggers.BestValueTrigger("k", None)
    with pytest.raises(ValueError, match="unknown trigger unit"):
        triggers.MinValueTrigger("k", trigger=(1, "epochs"))
