import pytest

import chainer
from chainer import serializers
from chainer import testing
from chainer.training import triggers


def test_stops_after_patience_checks_without_improvement(run_trigger):
    trigger = triggers.EarlyStoppingTrigger(patience=2, check_trigger=(1, "epoch"))
    fired, _ = run_trigger(trigger, [1.0, 0.8, 0.9, 0.7, 0.75, 0.72, 0.6])
    assert fired == [False, False, False, False, False, True, False]
    assert trigger.best == 0.6


def test_default_patience_is_3(run_trigger):
    trigger = triggers.EarlyStoppingTrigger()
    assert trigger.patience == 3
    fired, _ = run_trigger(trigger, [1.0, 2.0, 2.0, 2.0])
    assert fired == [False, False, False, True]


def test_accuracy_is_maximized_in_auto_mode(run_trigger):
    trigger = triggers.EarlyStoppingTrigger(monitor="main/accuracy", patience=1)
    fired, _ = run_trigger(trigger, [0.5, 0.6, 0.55], key="main/accuracy")
    assert fired == [False, False, True]


@pytest.mark.parametrize(("mode", "expected"), [("min", True), ("max", False)])
def test_explicit_mode(mode, expected, run_trigger):
    trigger = triggers.EarlyStoppingTrigger(mode=mode, patience=1)
    fired, _ = run_trigger(trigger, [1.0, 2.0])
    assert fired[-1] is expected


def test_values_are_averaged_between_checks(run_trigger):
    trigger = triggers.EarlyStoppingTrigger(check_trigger=(2, "iteration"), patience=1)
    # Means per check: 1.0, 0.9 (improved), 1.1 (not improved) -> stop.
    fired, _ = run_trigger(trigger, [0.5, 1.5, 0.9, 0.9, 1.2, 1.0])
    assert fired == [False, False, False, False, False, True]


def test_max_trigger_stops_training(run_trigger):
    trigger = triggers.EarlyStoppingTrigger(max_trigger=(3, "iteration"))
    fired, _ = run_trigger(trigger, [3.0, 2.0, 1.0, 0.5])
    assert fired == [False, False, True, False]
    assert trigger.get_training_length() == (3, "iteration")


def test_max_epoch_is_deprecated():
    with pytest.warns(DeprecationWarning, match="max_trigger"):
        trigger = triggers.EarlyStoppingTrigger(max_epoch=7)
    assert trigger.get_training_length() == (7, "epoch")


def test_patients_alias():
    assert triggers.EarlyStoppingTrigger(patients=5).patience == 5
    with pytest.raises(TypeError, match="patients"):
        triggers.EarlyStoppingTrigger(patience=2, patients=5)


def test_missing_monitor_warns(run_trigger):
    trigger = triggers.EarlyStoppingTrigger(monitor="validation/main/loss")
    with pytest.warns(UserWarning, match="'validation/main/loss' is not in"):
        fired, _ = run_trigger(trigger, [1.0])
    assert fired == [False]


def test_verbose_prints(capsys, run_trigger):
    trigger = triggers.EarlyStoppingTrigger(patience=1, verbose=True)
    run_trigger(trigger, [1.0, 2.0])
    out = capsys.readouterr().out
    assert "operator is less" in out
    assert "early stopping" in out


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"mode": "biggest"}, ValueError, "unknown mode 'biggest'"),
        ({"patience": -1}, ValueError, "non-negative"),
        ({"check_trigger": (1, "epochs")}, ValueError, "unknown trigger unit"),
        ({"monitr": "x"}, TypeError, "'monitr'"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        triggers.EarlyStoppingTrigger(**kwargs)


def test_resume(run_trigger):
    values = [1.0, 0.8, 0.9, 0.7, 0.75, 0.72, 0.6, 0.9, 0.9]
    kwargs = {"patience": 2, "check_trigger": (2, "iteration")}
    full, _ = run_trigger(triggers.EarlyStoppingTrigger(**kwargs), values)
    trigger = triggers.EarlyStoppingTrigger(**kwargs)
    first, trainer = run_trigger(trigger, values[:5])
    saver = serializers.DictionarySerializer()
    saver.save(trigger)
    resumed = triggers.EarlyStoppingTrigger(**kwargs)
    serializers.NpzDeserializer(saver.target).load(resumed)
    assert resumed.count == trigger.count
    assert resumed.best == trigger.best
    rest, _ = run_trigger(resumed, values[5:], trainer=trainer)
    assert first + rest == full

    # A snapshot without the trigger's entries (e.g. Chainer 7's) loads.
    fresh = triggers.EarlyStoppingTrigger(**kwargs)
    serializers.NpzDeserializer({}).load(fresh)
    assert fresh.count == 0


def test_as_stop_trigger_of_a_trainer():
    losses = iter([1.0, 0.5, 0.6, 0.7, 0.4, 0.3, 0.2])
    trigger = triggers.EarlyStoppingTrigger(
        check_trigger=(1, "iteration"), patience=2, max_trigger=(100, "iteration")
    )
    trainer = testing.get_trainer_with_mock_updater(trigger)
    trainer.updater.update_core.side_effect = lambda: chainer.report(
        {"main/loss": next(losses)}
    )
    trainer.run()
    assert trainer.updater.iteration == 4
