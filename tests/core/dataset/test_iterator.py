import pytest

from chainer import dataset


class CountingIterator(dataset.Iterator):
    """A minimal iterator in the style of the PTB example's."""

    def __init__(self, n, batch_size, repeat=True):
        super().__init__()
        self.n = n
        self.batch_size = batch_size
        self.repeat = repeat
        self.iteration = 0
        self.epoch = 0
        self.is_new_epoch = False
        self._previous_epoch_detail = -1.0
        self.finalized = 0

    def __next__(self):
        if not self.repeat and self.iteration * self.batch_size >= self.n:
            raise StopIteration
        self._previous_epoch_detail = self.epoch_detail
        start = self.iteration * self.batch_size
        self.iteration += 1
        epoch = self.iteration * self.batch_size // self.n
        self.is_new_epoch = epoch > self.epoch
        self.epoch = epoch
        return [(start + i) % self.n for i in range(self.batch_size)]

    @property
    def epoch_detail(self):
        return self.iteration * self.batch_size / self.n

    @property
    def previous_epoch_detail(self):
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    def finalize(self):
        self.finalized += 1

    def serialize(self, serializer):
        self.iteration = serializer("iteration", self.iteration)
        self.epoch = serializer("epoch", self.epoch)


def test_iterator_protocol():
    it = CountingIterator(4, 2, repeat=False)
    assert iter(it) is it
    assert list(it) == [[0, 1], [2, 3]]


def test_next_is_an_alias_of_dunder_next():
    it = CountingIterator(4, 2)
    assert it.next() == [0, 1]
    assert next(it) == [2, 3]
    assert it.is_new_epoch
    assert it.epoch == 1


def test_epoch_detail_contract():
    it = CountingIterator(4, 3)
    assert it.previous_epoch_detail is None
    assert it.epoch_detail == 0.0
    next(it)
    assert it.previous_epoch_detail == 0.0
    assert it.epoch_detail == 0.75
    next(it)
    assert it.previous_epoch_detail == 0.75
    assert it.epoch_detail == 1.5


def test_context_manager_finalizes():
    with CountingIterator(4, 2) as it:
        next(it)
    assert it.finalized == 1


def test_context_manager_finalizes_on_error():
    it = CountingIterator(4, 2)
    with pytest.raises(RuntimeError, match="boom"), it:
        raise RuntimeError("boom")
    assert it.finalized == 1


def test_serialize_round_trip():
    it = CountingIterator(4, 2)
    next(it)
    next(it)
    state = {}

    def save(key, value):
        state[key] = value
        return value

    it.serialize(save)
    resumed = CountingIterator(4, 2)
    resumed.serialize(lambda key, value: state[key])
    assert (resumed.iteration, resumed.epoch) == (2, 1)
    assert next(resumed) == next(it)


def test_base_defaults_do_nothing():
    class Minimal(dataset.Iterator):
        def __next__(self):
            return [1]

    it = Minimal()
    assert it.finalize() is None
    assert it.serialize(lambda key, value: value) is None
    assert it.next() == [1]


def test_subclass_without_next_cannot_be_instantiated():
    class NoNext(dataset.Iterator):
        pass

    with pytest.raises(TypeError, match="__next__"):
        NoNext()
