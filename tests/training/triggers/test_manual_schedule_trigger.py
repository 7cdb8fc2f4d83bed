import types

import pytest

from chainer import serializers
from chainer import testing
from chainer.training import triggers


def _run(trigger, iter_per_epoch, n, trainer=None):
    if trainer is None:
        trainer = testing.get_trainer_with_mock_updater(
            (n, "iteration"), iter_per_epoch
        )
    fired = []
    finished = []
    for _ in range(n):
        trainer.updater.update()
        fired.append(trigger(trainer))
        finished.append(trigger.finished)
    return fired, finished, trainer


def _iterations(fired):
    return [i + 1 for i, f in enumerate(fired) if f]


def test_iteration_points():
    trigger = triggers.ManualScheduleTrigger([2, 5], "iteration")
    fired, finished, _ = _run(trigger, 3, 8)
    assert _iterations(fired) == [2, 5]
    assert finished == [False] * 4 + [True] * 4


def test_single_point():
    trigger = triggers.ManualScheduleTrigger(3, "iteration")
    assert trigger.points == [3]
    fired, _, _ = _run(trigger, 3, 5)
    assert _iterations(fired) == [3]


def test_epoch_points():
    trigger = triggers.ManualScheduleTrigger([0.5, 1.5, 2], "epoch")
    fired, finished, _ = _run(trigger, 3, 9)
    # epoch_detail = it / 3: 0.5 is passed at it=2, 1.5 at it=5, 2 at it=6.
    assert _iterations(fired) == [2, 5, 6]
    assert finished[4] is False
    assert finished[5] is True


def test_not_fired_before_training():
    trainer = testing.get_trainer_with_mock_updater()
    assert not triggers.ManualScheduleTrigger([1], "iteration")(trainer)
    assert not triggers.ManualScheduleTrigger([1], "epoch")(trainer)


@pytest.mark.parametrize("unit", ["iteration", "epoch"])
def test_resume(unit):
    points = [3, 8, 11] if unit == "iteration" else [0.5, 2.5, 3]
    full, _, _ = _run(triggers.ManualScheduleTrigger(points, unit), 4, 14)
    trigger = triggers.ManualScheduleTrigger(points, unit)
    first, _, trainer = _run(trigger, 4, 6)
    saver = serializers.DictionarySerializer()
    saver.save(trigger)
    resumed = triggers.ManualScheduleTrigger(points, unit)
    serializers.NpzDeserializer(saver.target).load(resumed)
    rest, _, _ = _run(resumed, 4, 8, trainer)
    assert first + rest == full


@pytest.mark.parametrize("iter_per_epoch", [2.5, 0.5])
def test_unaligned_epochs(iter_per_epoch):
    trigger = triggers.ManualScheduleTrigger([1, 2], "epoch")
    fired, finished, _ = _run(trigger, iter_per_epoch, 6)
    # epoch_detail = it / iter_per_epoch passes 1 and 2 at once when tiny.
    assert _iterations(fired) == ([3, 5] if iter_per_epoch == 2.5 else [1])
    assert finished.index(True) == _iterations(fired)[-1] - 1


def test_sparse_calls_accumulate():
    trainer = testing.get_trainer_with_mock_updater(None, 2)
    trigger = triggers.ManualScheduleTrigger([2, 3, 7], "iteration")
    answers = []
    for _ in range(4):
        trainer.updater.update()
        trainer.updater.update()
        answers.append((trigger(trainer), trigger.finished))
    # Points passed between two calls fire at the later call.
    assert answers == [(True, False), (True, False), (False, False), (True, True)]


def test_finished_is_serialized():
    trigger = triggers.ManualScheduleTrigger([1], "iteration")
    _run(trigger, 2, 2)
    assert trigger.finished
    saver = serializers.DictionarySerializer()
    saver.save(trigger)
    resumed = triggers.ManualScheduleTrigger([1], "iteration")
    serializers.NpzDeserializer(saver.target).load(resumed)
    assert resumed.finished


def test_loading_old_snapshot_warns():
    trainer = testing.get_trainer_with_mock_updater(None, 2)
    for _ in range(3):
        trainer.updater.update()
    trigger = triggers.ManualScheduleTrigger([2, 4], "iteration")
    with pytest.warns(UserWarning, match="ManualScheduleTrigger"):
        serializers.NpzDeserializer({}).load(trigger)
    assert not trigger.finished
    trainer.updater.update()
    assert trigger(trainer)
    assert trigger.finished


def test_updater_reading_several_batches_per_update():
    # Regression: with truncated BPTT the updater's previous_epoch_detail is
    # the detail before its last read, not before the update, so a point
    # passed earlier in the update was missed.
    updater = types.SimpleNamespace(
        iteration=0, epoch_detail=0.0, previous_epoch_detail=None
    )
    trainer = types.SimpleNamespace(updater=updater)
    trigger = triggers.ManualScheduleTrigger([1, 2], "epoch")
    fired = []
    for _ in range(8):
        updater.iteration += 1
        updater.epoch_detail = round(updater.iteration * 0.3, 10)
        updater.previous_epoch_detail = round(updater.epoch_detail - 0.1, 10)
        fired.append(trigger(trainer))
    assert _iterations(fired) == [4, 7]


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (([1], "epochs"), ValueError, "unknown trigger unit 'epochs'"),
        (([], "epoch"), ValueError, "at least one point"),
        (([1, -2], "epoch"), ValueError, "positive"),
        ((["1"], "epoch"), TypeError, "number"),
    ],
)
def test_bad_arguments(args, error, match):
    with pytest.raises(error, match=match):
        triggers.ManualScheduleTrigger(*args)
