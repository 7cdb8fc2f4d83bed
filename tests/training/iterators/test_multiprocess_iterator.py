import multiprocessing
import os
import pickle
import signal
import time

import numpy
import pytest

from chainer import iterators
from chainer import serializers
from chainer.iterators import _worker_pool

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(),
    reason="the tests' datasets are local classes, which only fork can share",
)


def _multiprocess(**options):
    def make(dataset, batch_size, **kwargs):
        return iterators.MultiprocessIterator(
            dataset, batch_size, n_processes=2, **options, **kwargs
        )

    return make


@pytest.fixture
def no_children_left():
    yield
    assert multiprocessing.active_children() == []


def _array_dataset(n):
    return [
        (numpy.full((2, 3), i, dtype=numpy.float32), numpy.int32(i % 3))
        for i in range(n)
    ]


@pytest.mark.parametrize(
    ("n", "batch_size", "repeat", "shuffle", "kwargs"),
    [
        (10, 3, True, True, {}),
        (10, 3, True, False, {"n_prefetch": 3}),
        (10, 4, False, True, {"shared_mem": 0}),
        (5, 12, True, True, {"shared_mem": 4096}),
        (9, 2, False, False, {"n_prefetch": 2}),
        (11, 4, True, True, {"maxtasksperchild": 2, "n_prefetch": 2}),
    ],
)
@pytest.mark.usefixtures("no_children_left")
def test_same_batches_as_serial_iterator(
    n, batch_size, repeat, shuffle, kwargs, check_same_as_serial
):
    check_same_as_serial(
        _multiprocess(**kwargs), _array_dataset(n), batch_size, repeat, shuffle
    )


def test_tasks_wait_in_main_when_a_task_pipe_is_full(
    no_children_left, monkeypatch, make_sampler, assert_examples_equal
):
    # With a tiny budget every task but one per worker waits in the backlog.
    monkeypatch.setattr(_worker_pool, "_TASK_PIPE_BUDGET", 1)
    dataset = [numpy.full(3, i) for i in range(20)]
    serial = iterators.SerialIterator(dataset, 7, order_sampler=make_sampler(8))
    with iterators.MultiprocessIterator(
        dataset, 7, order_sampler=make_sampler(8), n_processes=2, n_prefetch=4
    ) as it:
        for _ in range(8):
            assert_examples_equal(next(it), next(serial))


@pytest.mark.usefixtures("no_children_left")
def test_repeat_false_and_reset(check_repeat_false_and_reset):
    check_repeat_false_and_reset(_multiprocess())


def test_reset_with_batches_in_flight_in_shared_memory(
    no_children_left, assert_examples_equal
):
    dataset = [numpy.arange(4) + 10 * i for i in range(8)]
    with iterators.MultiprocessIterator(
        dataset, 3, shuffle=False, n_processes=2, n_prefetch=2
    ) as it:
        next(it)
        next(it)
        it.reset()
        for expected in ([0, 1, 2], [3, 4, 5], [6, 7, 0], [1, 2, 3]):
            assert_examples_equal(next(it), [dataset[i] for i in expected])


def test_shared_memory_examples(no_children_left):
    i = 2
    dataset = [
        numpy.arange(5, dtype=numpy.float64) * i,
        (numpy.ones((2, 2), dtype=numpy.int16) * i, 7, "label"),
        {"x": numpy.full(3, i, dtype=numpy.uint8), "t": numpy.int64(i)},
        [numpy.zeros(0, dtype=numpy.float32), numpy.array(i, dtype=numpy.float16)],
        numpy.arange(100, dtype=numpy.float64),  # over shared_mem: pickled
        numpy.array([None, 1], dtype=object),  # object arrays are pickled
    ]
    with iterators.MultiprocessIterator(
        dataset, 6, shuffle=False, n_processes=2, shared_mem=256
    ) as it:
        for _ in range(2):
            batch = next(it)
            assert type(batch[2]) is dict
            assert type(batch[3]) is list
            assert batch[1][1:] == (7, "label")
            numpy.testing.assert_array_equal(batch[0], dataset[0])
            numpy.testing.assert_array_equal(batch[1][0], dataset[1][0])
            numpy.testing.assert_array_equal(batch[2]["x"], dataset[2]["x"])
            assert batch[2]["t"] == 2
            assert batch[3][0].shape == (0,)
            assert batch[3][1].dtype == numpy.float16
            numpy.testing.assert_array_equal(batch[4], dataset[4])
            assert batch[5].tolist() == [None, 1]
            # The arrays own their memory: the next batches reuse the slot.
            assert batch[0].base is None
            batch[0][:] = -1


def test_automatic_shared_memory_and_variable_sizes(no_children_left):
    dataset = [numpy.arange(i + 1, dtype=numpy.int32) for i in range(12)]
    with iterators.MultiprocessIterator(dataset, 3, shuffle=False, n_processes=2) as it:
        # The first batch sizes the slots; longer examples are pickled.
        for start in (0, 3, 6, 9, 0):
            batch = next(it)
            for k, x in enumerate(batch):
                numpy.testing.assert_array_equal(x, dataset[start + k])


def test_pack_and_unpack(assert_examples_equal):
    buffer = numpy.zeros(128, dtype=numpy.uint8)
    example = (numpy.arange(3, dtype=numpy.float32), numpy.int32(5))
    assert _worker_pool.measure(example) == 16
    packed = _worker_pool.pack(example, buffer, 64, 64)
    packed = pickle.loads(pickle.dumps(packed))
    restored = _worker_pool.unpack(packed, buffer)
    assert_examples_equal(restored, example)
    assert _worker_pool.pack(example, buffer, 64, 8) is None  # does not fit
    assert _worker_pool.pack("text", buffer, 0, 64) is None
    assert _worker_pool.pack((1, "a"), buffer, 0, 64) is None
    structured = numpy.zeros(2, dtype=[("a", "<i4"), ("b", ">f8")])
    structured["b"] = 1.5
    packed = pickle.loads(pickle.dumps(_worker_pool.pack(structured, buffer, 0, 64)))
    assert_examples_equal([_worker_pool.unpack(packed, buffer)], [structured])


def test_dataset_error_is_raised_with_the_worker_traceback(no_children_left):
    class Broken:
        def __len__(self):
            return 6

        def __getitem__(self, i):
            if i == 4:
                raise KeyError(f"missing {i}")
            return i

    with iterators.MultiprocessIterator(
        Broken(), 3, shuffle=False, n_processes=2, shared_mem=0
    ) as it:
        assert next(it) == [0, 1, 2]
        with pytest.raises(KeyError, match="missing 4") as info:
            next(it)
        assert "dataset[4] raised KeyError in a MultiprocessIterator" in str(
            info.value.__notes__
        )
        assert "Broken" not in str(info.value)
        assert "__getitem__" in str(info.value.__cause__)
        # The failed batch is asked for again.
        assert it.epoch_detail == 0.5
        with pytest.raises(KeyError):
            next(it)


def test_dataset_error_then_recovery(no_children_left, tmp_path):
    flag = tmp_path / "fail-once"
    flag.touch()

    class Flaky:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 3 and flag.exists():
                flag.unlink()
                raise OSError("transient")
            return i

    with iterators.MultiprocessIterator(Flaky(), 2, shuffle=False, n_processes=2) as it:
        assert next(it) == [0, 1]
        with pytest.raises(OSError, match="transient"):
            next(it)
        assert next(it) == [2, 3]
        assert next(it) == [0, 1]


def test_unpicklable_exception_or_example(no_children_left):
    class Odd(Exception):
        def __init__(self, a, b):
            super().__init__(a)

    class Dataset:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 1:
                raise Odd("cannot be rebuilt", 2)
            if i == 3:
                return lambda: i
            return i

    with iterators.MultiprocessIterator(
        Dataset(), 2, shuffle=False, n_processes=1, shared_mem=0
    ) as it:
        with pytest.raises(RuntimeError, match=r"dataset\[1\] raised Odd"):
            next(it)
        it.reset()
        it.serialize(serializers.NpzDeserializer(_state_at(it, 2)))
        with pytest.raises(Exception, match="pickle") as info:
            next(it)
        assert "dataset[3] returned an example that cannot be pickled" in str(
            info.value.__notes__
        )


def _state_at(it, position):
    return {
        "current_position": numpy.asarray(position),
        "epoch": numpy.asarray(0),
        "is_new_epoch": numpy.asarray(False),
        "previous_epoch_detail": numpy.asarray(0.0),
    }


def test_killed_worker_raises_instead_of_hanging(no_children_left):
    class Slow:
        def __len__(self):
            return 8

        def __getitem__(self, i):
            if i >= 2:
                time.sleep(0.5)
            return numpy.full(2, i)

    it = iterators.MultiprocessIterator(
        Slow(), 2, shuffle=False, n_processes=2, dataset_timeout=None
    )
    try:
        next(it)
        victim = it._pool.active[0].process.pid
        os.kill(victim, signal.SIGKILL)
        start = time.monotonic()
        with pytest.raises(RuntimeError, match="killed by signal SIGKILL") as info:
            next(it)
        assert time.monotonic() - start < 5
        assert f"pid {victim}" in str(info.value)
        assert multiprocessing.active_children() == []
        # The iterator goes on with new workers from where it was.
        numpy.testing.assert_array_equal(next(it)[0], [2, 2])
    finally:
        it.finalize()


def test_worker_exiting_is_reported(no_children_left):
    class Exiting:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 2:
                os._exit(3)
            return i

    with iterators.MultiprocessIterator(
        Exiting(), 2, shuffle=False, n_processes=2, shared_mem=0
    ) as it:
        assert next(it) == [0, 1]
        with pytest.raises(RuntimeError, match=r"exited with code 3 .*indices \[2\]"):
            next(it)


def test_finalize_leaves_no_child_processes():
    it = iterators.MultiprocessIterator(list(range(10)), 2, n_processes=3)
    next(it)
    assert len(multiprocessing.active_children()) == 3
    it.finalize()
    assert multiprocessing.active_children() == []
    it.finalize()
    with iterators.MultiprocessIterator(list(range(10)), 2, n_processes=2) as it:
        next(it)
    assert multiprocessing.active_children() == []


def test_garbage_collection_stops_the_workers():
    it = iterators.MultiprocessIterator(list(range(10)), 2, n_processes=2)
    next(it)
    del it
    assert multiprocessing.active_children() == []


def test_timeout_warning(no_children_left):
    class Slow:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            time.sleep(0.3)
            return i

    with (
        iterators.MultiprocessIterator(
            Slow(), 2, shuffle=False, n_processes=2, shared_mem=0, dataset_timeout=0.05
        ) as it,
        pytest.warns(iterators.MultiprocessIterator.TimeoutWarning),
    ):
        assert next(it) == [0, 1]
    assert issubclass(iterators.MultiprocessIterator.TimeoutWarning, RuntimeWarning)


def test_timeout_warning_while_measuring(no_children_left):
    class Slow:
        def __len__(self):
            return 2

        def __getitem__(self, i):
            time.sleep(0.06)
            return numpy.zeros(2)

    with (
        iterators.MultiprocessIterator(
            Slow(), 2, n_processes=1, dataset_timeout=0.05
        ) as it,
        pytest.warns(iterators.MultiprocessIterator.TimeoutWarning),
    ):
        next(it)


def test_workers_have_different_random_streams(no_children_left):
    class Random:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return (os.getpid(), numpy.random.randint(2**31))

    with iterators.MultiprocessIterator(
        Random(), 4, shuffle=False, n_processes=2, shared_mem=0
    ) as it:
        batch = next(it)
    pids = {pid for pid, _ in batch}
    assert len(pids) == 2
    assert len({value for _, value in batch}) == 4


def test_maxtasksperchild_replaces_workers(no_children_left):
    class Pids:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return os.getpid()

    with iterators.MultiprocessIterator(
        Pids(), 2, shuffle=False, n_processes=1, maxtasksperchild=1, shared_mem=0
    ) as it:
        pids = {next(it)[0] for _ in range(4)}
    assert len(pids) == 4


@pytest.mark.parametrize("n_before", [1, 3])
def test_resume_mid_epoch_continues_the_same_order(
    no_children_left,
    tmp_path,
    n_before,
    make_sampler,
    iterator_attrs,
    assert_examples_equal,
):
    dataset = _array_dataset(9)
    path = tmp_path / "it.npz"
    with iterators.MultiprocessIterator(
        dataset, 4, order_sampler=make_sampler(1), n_processes=2, n_prefetch=2
    ) as it:
        for _ in range(n_before):
            next(it)
        serializers.save_npz(path, it)
        rest = 9 - it.current_position
        expected = [x for _ in range(-(-rest // 4)) for x in next(it)][:rest]
        attrs = iterator_attrs(it)
    with iterators.MultiprocessIterator(
        dataset, 4, order_sampler=make_sampler(50), n_processes=2, n_prefetch=2
    ) as resumed:
        next(resumed)  # prefetched batches are in flight when loading
        serializers.load_npz(path, resumed)
        got = [x for _ in range(-(-rest // 4)) for x in next(resumed)][:rest]
        assert_examples_equal(got, expected)
        assert iterator_attrs(resumed) == attrs
    serial = iterators.SerialIterator(dataset, 4, order_sampler=make_sampler(0))
    serializers.load_npz(path, serial)
    got = [x for _ in range(-(-rest // 4)) for x in next(serial)][:rest]
    assert_examples_equal(got, expected)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"batch_size": 0}, ValueError, "batch_size must be positive"),
        ({"n_processes": 0}, ValueError, "n_processes must be at least 1, got 0"),
        ({"n_prefetch": 0}, ValueError, "n_prefetch must be at least 1, got 0"),
        ({"shared_mem": -1}, ValueError, "shared_mem must be at least 0, got -1"),
        ({"shared_mem": 1.5}, TypeError, "shared_mem must be an int"),
        ({"dataset_timeout": 0}, ValueError, "dataset_timeout must be positive"),
        ({"dataset_timeout": "1"}, TypeError, "dataset_timeout must be a number"),
        ({"maxtasksperchild": 0}, ValueError, "maxtasksperchild must be at least 1"),
        (
            {"shuffle": False, "order_sampler": iterators.ShuffleOrderSampler()},
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
        iterators.MultiprocessIterator(**args)
    assert multiprocessing.active_children() == []


def test_empty_dataset_not_repeating_starts_no_worker():
    with iterators.MultiprocessIterator([], 2, repeat=False) as it:
        assert list(it) == []
        assert multiprocessing.active_children() == []


def test_default_number_of_processes():
    it = iterators.MultiprocessIterator([1, 2], 1)
    assert it.n_processes == multiprocessing.cpu_count()
    assert multiprocessing.active_children() == []


@pytest.mark.usefixtures("no_children_left")
def test_order_sampler_error_comes_with_the_batch_that_needs_it(
    check_order_sampler_error_is_deferred,
):
    check_order_sampler_error_is_deferred(_multiprocess())
