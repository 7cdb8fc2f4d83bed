import pytest

from chainer import serializers
from chainer.training import triggers


def _resume(trigger, call_on_resume):
    saver = serializers.DictionarySerializer()
    saver.save(trigger)
    resumed = triggers.OnceTrigger(call_on_resume)
    serializers.NpzDeserializer(saver.target).load(resumed)
    return resumed


def test_fires_once():
    trigger = triggers.OnceTrigger()
    assert not trigger.finished
    assert [trigger(None) for _ in range(3)] == [True, False, False]
    assert trigger.finished


def test_resume_without_call_on_resume():
    trigger = triggers.OnceTrigger()
    trigger(None)
    resumed = _resume(trigger, False)
    assert resumed.finished
    assert [resumed(None) for _ in range(2)] == [False, False]


def test_resume_with_call_on_resume():
    trigger = triggers.OnceTrigger(call_on_resume=True)
    assert trigger(None)
    assert not trigger(None)
    resumed = _resume(trigger, True)
    assert not resumed.finished
    assert [resumed(None) for _ in range(2)] == [True, False]


def test_resume_before_firing():
    resumed = _resume(triggers.OnceTrigger(), False)
    assert resumed(None)


def test_old_snapshot_warns_and_counts_as_fired():
    trigger = triggers.OnceTrigger()
    with pytest.warns(UserWarning, match="OnceTrigger"):
        serializers.NpzDeserializer({}).load(trigger)
    assert trigger.finished
    assert not trigger(None)
    resumed = triggers.OnceTrigger(call_on_resume=True)
    with pytest.warns(UserWarning, match="OnceTrigger"):
        serializers.NpzDeserializer({}).load(resumed)
    assert [resumed(None), resumed(None)] == [True, False]
