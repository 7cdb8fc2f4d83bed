import types

import pytest

from chainer import serializers
from chainer import testing
from chainer.training import triggers


def _expected(period, unit, iter_per_epoch, n):
    # Fires when the counter passes a multiple of the period.
    fires = []
    for it in range(1, n + 1):
        if unit == "iteration":
            prev, cur = it - 1, it
        else:
            prev, cur = (it - 1) / iter_per_epoch, it / iter_per_epoch
        m = period
        hit = False
        while m <= cur + 1e-12:
            if m > prev + 1e-12:
                hit = True
            m += period
        fires.append(hit)
    return fires


def _run(trigger, iter_per_epoch, n, trainer=None):
    if trainer is None:
        trainer = testing.get_trainer_with_mock_updater(
            (n, "iteration"), iter_per_epoch
        )
    fired = []
    for _ in range(n):
        trainer.updater.update()
        fired.append(trigger(trainer))
    return fired, trainer


@pytest.mark.parametrize(
    ("period", "unit", "iter_per_epoch"),
    [
        (1, "iteration", 5),
        (3, "iteration", 5),
        (1, "epoch", 5),
        (2, "epoch", 3),
        (0.5, "epoch", 4),
        (0.5, "epoch", 3),
        (1.5, "epoch", 2),
    ],
)
def test_firing_pattern(period, unit, iter_per_epoch):
    n = 24
    fired, _ = _run(triggers.IntervalTrigger(period, unit), iter_per_epoch, n)
    assert fired == _expected(period, unit, iter_per_epoch, n)


def test_does_not_fire_before_first_update():
    trainer = testing.get_trainer_with_mock_updater((10, "iteration"))
    assert not triggers.IntervalTrigger(1, "iteration")(trainer)
    assert not triggers.IntervalTrigger(1, "epoch")(trainer)


@pytest.mark.parametrize("unit", ["epoch", "iteration"])
def test_resume_mid_run(unit):
    period, ipe, n, cut = (2, 3, 20, 7) if unit == "epoch" else (4, 3, 20, 7)
    full, _ = _run(triggers.IntervalTrigger(period, unit), ipe, n)
    trigger = triggers.IntervalTrigger(period, unit)
    first, trainer = _run(trigger, ipe, cut)
    saved = serializers.DictionarySerializer()
    saved.save(trigger)
    resumed = triggers.IntervalTrigger(period, unit)
    serializers.NpzDeserializer(saved.target).load(resumed)
    rest, _ = _run(resumed, ipe, n - cut, trainer)
    assert first + rest == full


@pytest.mark.parametrize(
    ("period", "unit", "iter_per_epoch"),
    [(3, "iteration", 2), (1, "epoch", 2.5), (0.5, "epoch", 3), (1, "epoch", 0.5)],
)
def test_sparse_calls_accumulate(period, unit, iter_per_epoch):
    # Called only every third iteration, the trigger fires if a multiple of
    # the period was crossed since its previous call.
    n = 18
    every = _expected(period, unit, iter_per_epoch, n)
    trainer = testing.get_trainer_with_mock_updater(None, iter_per_epoch)
    trigger = triggers.IntervalTrigger(period, unit)
    for start in range(0, n, 3):
        for _ in range(3):
            trainer.updater.update()
        assert trigger(trainer) == any(every[start : start + 3])


def test_updater_without_previous_epoch_detail():
    # A custom updater providing only epoch_detail: the trigger keeps state.
    updater = types.SimpleNamespace(iteration=0, epoch_detail=0.0)
    trainer = types.SimpleNamespace(updater=updater)
    trigger = triggers.IntervalTrigger(1, "epoch")
    fired = []
    for it in range(1, 9):
        updater.iteration = it
        updater.epoch_detail = it / 3
        fired.append(trigger(trainer))
        if it == 4:
            saved = serializers.DictionarySerializer()
            saved.save(trigger)
            trigger = triggers.IntervalTrigger(1, "epoch")
            serializers.NpzDeserializer(saved.target).load(trigger)
    assert fired == [False, False, True, False, False, True, False, False]


def _bptt_updater():
    # Each update reads its iterator three times, 0.1 epoch each (truncated
    # BPTT), so previous_epoch_detail is only 0.1 behind epoch_detail.
    return types.SimpleNamespace(
        iteration=0, epoch_detail=0.0, previous_epoch_detail=None
    )


def _bptt_step(updater):
    updater.iteration += 1
    updater.epoch_detail = round(updater.iteration * 0.3, 10)
    updater.previous_epoch_detail = round(updater.epoch_detail - 0.1, 10)


def test_updater_reading_several_batches_per_update():
    # Regression: the trigger used the updater's previous_epoch_detail, so
    # an epoch crossed before the last read of an update never fired it.
    updater = _bptt_updater()
    trainer = types.SimpleNamespace(updater=updater)
    trigger = triggers.IntervalTrigger(1, "epoch")
    fired = []
    for it in range(1, 11):
        _bptt_step(updater)
        fired.append(trigger(trainer))
        if it == 5:
            saved = serializers.DictionarySerializer()
            saved.save(trigger)
            trigger = triggers.IntervalTrigger(1, "epoch")
            serializers.NpzDeserializer(saved.target).load(trigger)
    # epoch_detail 0.3, 0.6, ... crosses 1, 2, 3 at iterations 4, 7, 10.
    assert [i + 1 for i, f in enumerate(fired) if f] == [4, 7, 10]


def test_loading_old_snapshot_warns_and_guesses():
    # A snapshot without the counters warns; the trigger then reads the
    # updater's previous_epoch_detail (and iteration - 1).
    trainer = testing.get_trainer_with_mock_updater(None, 3)
    for _ in range(2):
        trainer.updater.update()
    epoch = triggers.IntervalTrigger(1, "epoch")
    iteration = triggers.IntervalTrigger(3, "iteration")
    for trigger in (epoch, iteration):
        with pytest.warns(UserWarning, match="IntervalTrigger"):
            serializers.NpzDeserializer({}).load(trigger)
    trainer.updater.update()
    assert epoch(trainer)
    assert iteration(trainer)
    trainer.updater.update()
    assert not epoch(trainer)
    assert not iteration(trainer)


def test_training_length_and_str():
    trigger = triggers.IntervalTrigger(5, "iteration")
    assert trigger.get_training_length() == (5, "iteration")
    assert str(trigger) == "<IntervalTrigger: period: 5, unit: iteration>"
    assert trigger.period == 5
    assert trigger.unit == "iteration"


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((1, "epochs"), ValueError, "unknown trigger unit 'epochs'"),
        ((1, None), ValueError, "unknown trigger unit None"),
        ((0, "epoch"), ValueError, "positive"),
        ((True, "epoch"), TypeError, "number"),
        (("2", "epoch"), TypeError, "number"),
    ],
)
def test_bad_arguments(args, error, match):
    with pytest.raises(error, match=match):
        triggers.IntervalTrigger(*args)
