import threading

import pytest

from chainer import iterators
from chainer import serializers


def _multithread(n_threads):
    def make(dataset, batch_size, **kwargs):
        return iterators.MultithreadIterator(
            dataset, batch_size, n_threads=n_threads, **kwargs
        )

    return make


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
def test_same_batches_as_serial_iterator(
    n, batch_size, repeat, shuffle, n_threads, check_same_as_serial
):
    dataset = [(i, -i) for i in range(n)]
    check_same_as_serial(_multithread(n_threads), dataset, batch_size, repeat, shuffle)


def test_repeat_false_iterates_once_and_resets(check_repeat_false_and_reset):
    check_repeat_false_and_reset(_multithread(2))


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
def test_resume_mid_epoch_continues_the_same_order(
    tmp_path, n_before, make_sampler, iterator_attrs
):
    dataset = list(range(9))
    with iterators.MultithreadIterator(
        dataset, 4, order_sampler=make_sampler(1), n_threads=2
    ) as it:
        for _ in range(n_before):
            next(it)
        path = tmp_path / "it.npz"
        serializers.save_npz(path, it)
        with iterators.MultithreadIterator(
            dataset, 4, order_sampler=make_sampler(50), n_threads=2
        ) as resumed:
            serializers.load_npz(path, resumed)
            assert iterator_attrs(resumed) == iterator_attrs(it)
            rest = 9 - it.current_position
            a = [x for _ in range(-(-rest // 4)) for x in next(it)][:rest]
            b = [x for _ in range(-(-rest // 4)) for x in next(resumed)][:rest]
            assert a == b
        # Saving does not disturb the iteration.
        serial = iterators.SerialIterator(dataset, 4, order_sampler=make_sampler(1))
        for _ in range(n_before + -(-rest // 4)):
            next(serial)
        assert [next(it) for _ in range(3)] == [next(serial) for _ in range(3)]


def test_snapshot_interchangeable_with_serial_iterator(make_sampler, iterator_attrs):
    dataset = list(range(6))
    serial = iterators.SerialIterator(dataset, 4, order_sampler=make_sampler(2))
    next(serial)
    target = {}
    serializers.DictionarySerializer(target).save(serial)
    with iterators.MultithreadIterator(dataset, 4, order_sampler=make_sampler(0)) as it:
        next(it)  # a prefetched batch is pending; loading must drop it
        serializers.NpzDeserializer(target).load(it)
        assert iterator_attrs(it) == iterator_attrs(serial)
        assert next(it)[:2] == next(serial)[:2]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"batch_size": 0}, ValueError, "batch_size must be positive"),
        ({"n_threads": 0}, ValueError, "n_threads must be at least 1, got 0"),
        ({"n_threads": 1.5}, TypeError, "n_threads must be an int"),
        (
            {"shuffle": True, "order_sampler": iterators.ShuffleOrderSampler()},
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


def test_order_sampler_error_comes_with_the_batch_that_needs_it(
    check_order_sampler_error_is_deferred,
):
    check_order_sampler_error_is_deferred(_multithread(1))
