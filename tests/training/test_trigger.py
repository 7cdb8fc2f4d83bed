import pytest

from chainer import training
from chainer.training import trigger
from chainer.training import util


@pytest.mark.parametrize("get_trigger", [trigger.get_trigger, util.get_trigger])
def test_get_trigger(get_trigger):
    def fn(trainer):
        return True

    assert get_trigger(fn) is fn
    never = get_trigger(None)
    assert never(None) is False
    interval = get_trigger((3, "epoch"))
    assert isinstance(interval, training.triggers.IntervalTrigger)
    assert interval.get_training_length() == (3, "epoch")
    assert isinstance(get_trigger([2, "iteration"]), training.IntervalTrigger)


def test_training_namespace_names():
    assert training.get_trigger is trigger.get_trigger
    assert util.get_trigger is trigger.get_trigger
    assert trigger.IntervalTrigger is training.IntervalTrigger


@pytest.mark.parametrize(
    ("spec", "error", "match"),
    [
        ((1, "epochs"), ValueError, "unknown trigger unit 'epochs'; use 'epoch'"),
        ((1,), TypeError, r"\(period, unit\) pair"),
        ((1, "epoch", 2), TypeError, r"\(period, unit\) pair"),
        ("epoch", TypeError, "callable, None or a"),
        (5, TypeError, "callable, None or a"),
        ((0, "epoch"), ValueError, "must be positive"),
        ((-1, "iteration"), ValueError, "must be positive"),
        (("1", "epoch"), TypeError, "must be a number"),
    ],
)
def test_get_trigger_bad_input(spec, error, match):
    with pytest.raises(error, match=match):
        trigger.get_trigger(spec)
