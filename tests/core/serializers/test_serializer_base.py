import pytest

import chainer
from chainer import serializer


class _Recorder(serializer.Serializer):
    def __init__(self):
        self.seen = []

    def __call__(self, key, value):
        self.seen.append((key, value))
        return value


class _Target:
    def __init__(self):
        self.x = 1

    def serialize(self, s):
        self.x = s("x", self.x)


def test_exported_from_chainer():
    assert chainer.AbstractSerializer is serializer.AbstractSerializer
    assert chainer.Serializer is serializer.Serializer
    assert chainer.Deserializer is serializer.Deserializer
    assert issubclass(serializer.Serializer, serializer.AbstractSerializer)
    assert issubclass(serializer.Deserializer, serializer.AbstractSerializer)


def test_save_calls_serialize():
    r = _Recorder()
    r.save(_Target())
    assert r.seen == [("x", 1)]


def test_load_calls_serialize():
    class Five(serializer.Deserializer):
        def __call__(self, key, value):
            return 5

    t = _Target()
    Five().load(t)
    assert t.x == 5


def test_bad_target():
    with pytest.raises(TypeError, match="no serialize"):
        _Recorder().save(3)
    with pytest.raises(TypeError, match="no serialize"):
        serializer.Deserializer().load(object())


def test_base_methods_need_overriding():
    base = serializer.AbstractSerializer()
    with pytest.raises(TypeError, match="__call__"):
        base("x", 1)
    with pytest.raises(TypeError, match="__getitem__"):
        base["child"]
