import types

import pytest

from chainer import serializers
from chainer.training import triggers


def _fire(trigger, times):
    trainer = types.SimpleNamespace(elapsed_time=0.0)
    fired = []
    for t in times:
        trainer.elapsed_time = t
        fired.append(trigger(trainer))
    return fired


def test_fires_after_each_period():
    trigger = triggers.TimeTrigger(1.0)
    times = [0.5, 1.0, 1.2, 1.5, 2.1, 3.5, 3.9, 4.1]
    assert _fire(trigger, times) == [False, False, True, False, True, True, False, True]


def test_serialize_next_time():
    trigger = triggers.TimeTrigger(2)
    _fire(trigger, [2.5])
    saver = serializers.DictionarySerializer()
    saver.save(trigger)
    resumed = triggers.TimeTrigger(2)
    serializers.NpzDeserializer(saver.target).load(resumed)
    assert _fire(resumed, [3.0, 4.5]) == [False, True]


def test_with_trainer():
    from chainer import testing

    trainer = testing.get_trainer_with_mock_updater((3, "iteration"))
    calls = []
    trainer.extend(lambda t: calls.append(1), trigger=triggers.TimeTrigger(1e-9))
    trainer.run()
    assert calls == [1, 1, 1]


@pytest.mark.parametrize(
    ("period", "error"), [(0, ValueError), (-1.0, ValueError), ("1", TypeError)]
)
def test_bad_period(period, error):
    with pytest.raises(error, match="period"):
        triggers.TimeTrigger(period)
