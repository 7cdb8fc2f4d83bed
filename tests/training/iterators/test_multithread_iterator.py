import threading

import numpy
import pytest

from chainer import iterators
from chainer import serializers


def _sampler(seed):
    return iterators.ShuffleOrderSampler(numpy.random.RandomState(seed))


def _attrs(it):
    return (
        it.epoch,
        it.is_new_epoch,
        it.epoch_detail,
        it.previous_epoch_detail,
        it.current_position,
    )


@pytest.mark.parametrize(
    ("n", "batch_size", "repeat", "shuffle", "n_threads"),
    [
        (10, 3, True, True, 1),
        (10, 3, True, False, 2),
        (10, 4, False, True, 3),
        (7, 7, True, True, 4),
        (5, 12, True, True, 2),
        (9, 2, False, False, 2),
    ],
)
def test_same_batches_as_serial_iterator(n, batch_size, repeat, shuffle, n_threads):
    dataset = [(i, -i) for i in range(n)]

    def sampler():
        return _sampler(3) if shuffle else None

    kwargs = {"repeat": repeat}
    if shuffle:
        kwargs["order_sampler"] = sampler()
    else:
        kwargs["shuffle"] = False
    serial = iterators.SerialIterator(dataset, batch_size, **kwargs)
    if shuffle:
        kwargs["order_sampler"] = sampler()
    with iterators.MultithreadIterator(
        dataset, batch_size, n_threads=n_threads, **kwargs
    ) as it:
        assert _attrs(it) == _attrs(serial)
        for _ in range(3 * n):
            try:
                expected = next(serial)
            except StopIteration:
                with pytest.raises(StopIteration):
                    next(it)
                break
            assert next(it) == expected
            assert _attrs(it) == _attrs(serial)
        else:
            assert repeat


def test_repeat_false_iterates_once_and_resets():
    with iterators.MultithreadIterator(
        list(range(5)), 2, repeat=False, shuffle=False, n_threads=2
    ) as it:
        assert list(it) == [[0, 1], [2, 3], [4]]
        assert list(it) == []
        it.reset()
        assert it.previous_epoch_detail is None
        assert list(it) == [[0, 1], [2, 3], [4]]


def test_shuffle_default_is_a_permutation_per_epoch():
    with iterators.MultithreadIterator(list(range(8)), 4, n_threads=2) as it:
        for _ in range(3):
            assert sorted(next(it) + next(it)) == list(range(8))


def test_loads_in_worker_threads():
    names = set()

    class Recorder:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            names.add(threading.current_thread().name)
            return i

    with iterators.MultithreadIterator(Recorder(), 2, shuffle=False) as it:
        next(it)
    assert names
    assert all(name.startswith("MultithreadIterator") for name in names)


def test_dataset_error_is_raised_and_the_batch_asked_again():
    state = {"fail": True}

    class Flaky:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 2 and state.pop("fail", False):
                raise KeyError("flaky")
            return i

    with iterators.MultithreadIterator(Flaky(), 2, shuffle=False, n_threads=2) as it:
        assert next(it) == [0, 1]
        with pytest.raises(KeyError, match="flaky"):
            next(it)
        assert it.epoch_detail == 0.5
        assert next(it) == [2, 3]
        assert it.is_new_epoch


@pytest.mark.parametrize("n_before", [1, 2, 4])
def test_resume_mid_epoch_continues_the_same_order(tmp_path, n_before):
    dataset = list(range(9))
    with iterators.MultithreadIterator(
        dataset, 4, order_sampler=_sampler(1), n_threads=2
    ) as it:
        for _ in range(n_before):
            next(it)
        path = tmp_path / "it.npz"
        serializers.save_npz(path, it)
        with iterators.MultithreadIterator(
            dataset, 4, order_sampler=_sampler(50), n_threads=2
        ) as resumed:
            serializers.load_npz(path, resumed)
            assert _attrs(resumed) == _attrs(it)
            rest = 9 - it.current_position
            a = [x for _ in range(-(-rest // 4)) for x in next(it)][:rest]
            b = [x for _ in range(-(-rest // 4)) for x in next(resumed)][:rest]
            assert a == b
        # Saving does not disturb the iteration.
        serial = iterators.SerialIterator(dataset, 4, order_sampler=_sampler(1))
        for _ in range(n_before + -(-rest // 4)):
            next(serial)
        assert [next(it) for _ in range(3)] == [next(serial) for _ in range(3)]


def test_snapshot_interchangeable_with_serial_iterator():
    dataset = list(range(6))
    serial = iterators.SerialIterator(dataset, 4, order_sampler=_sampler(2))
    next(serial)
    target = {}
    serializers.DictionarySerializer(target).save(serial)
    with iterators.MultithreadIterator(dataset, 4, order_sampler=_sampler(0)) as it:
        next(it)  # a prefetched batch is pending; loading must drop it
        serializers.NpzDeserializer(target).load(it)
        assert _attrs(it) == _attrs(serial)
        assert next(it)[:2] == next(serial)[:2]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"batch_size": 0}, ValueError, "batch_size must be positive"),
        ({"n_threads": 0}, ValueError, "n_threads must be at least 1, got 0"),
        ({"n_threads": 1.5}, TypeError, "n_threads must be an int"),
        (
            {"shuffle": True, "order_sampler": _sampler(0)},
            ValueError,
            "shuffle is not None",
        ),
        ({"dataset": []}, ValueError, "empty dataset"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    args = {"dataset": [1, 2, 3], "batch_size": 2}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        iterators.MultithreadIterator(**args)


def test_empty_dataset_not_repeating_yields_nothing():
    with iterators.MultithreadIterator([], 2, repeat=False) as it:
        assert list(it) == []


def test_finalize_stops_the_threads_and_iteration_can_go_on():
    before = threading.active_count()
    it = iterators.MultithreadIterator(list(range(6)), 2, shuffle=False, n_threads=3)
    assert next(it) == [0, 1]
    it.finalize()
    assert threading.active_count() == before
    assert next(it) == [2, 3]
    it.finalize()
    it.finalize()
    assert threading.active_count() == before


def test_order_sampler_error_comes_with_the_batch_that_needs_it():
    calls = []

    def sampler(current_order, current_position):
        calls.append(current_position)
        if len(calls) == 2:
            raise ValueError("no second order")
        return numpy.arange(len(current_order))

    with iterators.MultithreadIterator(list(range(4)), 2, order_sampler=sampler) as it:
        assert next(it) == [0, 1]
        with pytest.raises(ValueError, match="no second order"):
            next(it)
        assert it.epoch_detail == 0.5
        assert next(it) == [2, 3]
        assert it.is_new_epoch
