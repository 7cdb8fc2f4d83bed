"""Tests of DaliIterator: NVIDIA DALI is optional."""

import pytest

from chainer import iterators
from chainer import serializers
from chainer.iterators import dali_iterator


class FakePipeline:
    """The part of a DALI pipeline that the iterator uses."""

    def __init__(self, batch_size, size):
        self.batch_size = batch_size
        self.size = size
        self.builds = 0
        self.runs = 0

    def epoch_size(self):
        return {"Reader": self.size}

    def build(self):
        self.builds += 1

    def run(self):
        self.runs += 1
        return (f"batch{self.runs}",)


@pytest.fixture
def with_dali(monkeypatch):
    monkeypatch.setattr(dali_iterator, "_dali_available", lambda: True)


def test_construction_without_dali_names_the_package():
    if dali_iterator._dali_available():
        pytest.skip("NVIDIA DALI is installed")
    assert iterators.DaliIterator is dali_iterator.DaliIterator
    with pytest.raises(RuntimeError, match="pip install nvidia-dali"):
        iterators.DaliIterator(FakePipeline(2, 5))


def test_epochs(with_dali):
    pipeline = FakePipeline(2, 5)
    it = iterators.DaliIterator(pipeline)
    assert it.batch_size == 2
    assert it.epoch_size == 5
    assert it.previous_epoch_detail is None
    assert pipeline.builds == 0  # built at the first batch
    details = []
    for _ in range(5):
        batch = next(it)
        details.append((it.epoch, it.is_new_epoch, it.epoch_detail))
    assert batch == ("batch5",)
    assert pipeline.builds == 1
    assert details == [
        (0, False, 0.4),
        (0, False, 0.8),
        (1, True, 1.2),
        (1, False, 1.6),
        (2, True, 2.0),
    ]
    assert it.previous_epoch_detail == pytest.approx(1.6)


def test_no_repeat(with_dali):
    it = iterators.DaliIterator(FakePipeline(2, 4), repeat=False)
    assert not it.repeat
    assert len(list(it)) == 2


def test_serialize_and_reset(with_dali):
    it = iterators.DaliIterator(FakePipeline(2, 5))
    for _ in range(3):
        next(it)
    saved = serializers.DictionarySerializer()
    saved.save(it)
    resumed = iterators.DaliIterator(FakePipeline(2, 5))
    serializers.NpzDeserializer(saved.target).load(resumed)
    assert (resumed.epoch, resumed.current_position) == (1, 1)
    assert resumed.is_new_epoch
    assert resumed.previous_epoch_detail == pytest.approx(0.8)
    resumed.reset()
    assert (resumed.epoch, resumed.epoch_detail) == (0, 0.0)
    assert resumed.previous_epoch_detail is None


def test_empty_epoch_is_an_error(with_dali):
    with pytest.raises(ValueError, match="epoch size of 0"):
        iterators.DaliIterator(FakePipeline(2, 0))
