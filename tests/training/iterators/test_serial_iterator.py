import io

import numpy
import pytest

from chainer import iterators
from chainer import serializers
from chainer.dataset import iterator as iterator_module


def _epoch_attrs(it):
    return (it.epoch, it.is_new_epoch, it.epoch_detail, it.previous_epoch_detail)


def test_is_a_dataset_iterator():
    it = iterators.SerialIterator([1, 2], 1)
    assert isinstance(it, iterator_module.Iterator)
    assert iter(it) is it


def test_sequential_repeat_epoch_attributes():
    it = iterators.SerialIterator(list(range(6)), 2, shuffle=False)
    assert _epoch_attrs(it) == (0, False, 0.0, None)
    expected = [
        ([0, 1], 0, False),
        ([2, 3], 0, False),
        ([4, 5], 1, True),
        ([0, 1], 1, False),
        ([2, 3], 1, False),
        ([4, 5], 2, True),
    ]
    previous = 0.0
    for n, (batch, epoch, is_new) in enumerate(expected, 1):
        assert next(it) == batch
        assert it.epoch == epoch
        assert it.is_new_epoch is is_new
        assert it.epoch_detail == pytest.approx(n / 3)
        assert it.previous_epoch_detail == pytest.approx(previous)
        assert it.current_position == (2 * n) % 6
        previous = it.epoch_detail


def test_last_batch_wraps_into_next_epoch():
    it = iterators.SerialIterator(list(range(5)), 2, shuffle=False)
    batches = [next(it) for _ in range(5)]
    assert batches == [[0, 1], [2, 3], [4, 0], [1, 2], [3, 4]]
    assert it.epoch == 2
    assert it.is_new_epoch


def test_wrapped_batch_fills_from_the_new_epoch_order():
    orders = [numpy.array([2, 0, 1]), numpy.array([1, 2, 0]), numpy.array([0, 1, 2])]

    def sampler(current_order, current_position):
        return orders.pop(0)

    it = iterators.SerialIterator(["a", "b", "c"], 2, order_sampler=sampler)
    assert next(it) == ["c", "a"]
    assert next(it) == ["b", "b"]  # end of [2, 0, 1], then start of [1, 2, 0]
    assert (it.epoch, it.is_new_epoch, it.current_position) == (1, True, 1)
    assert next(it) == ["c", "a"]
    assert it.epoch == 2


def test_batch_larger_than_dataset_crosses_epochs():
    it = iterators.SerialIterator([0, 1, 2], 7, shuffle=False)
    assert next(it) == [0, 1, 2, 0, 1, 2, 0]
    assert it.epoch == 2
    assert it.epoch_detail == pytest.approx(7 / 3)


def test_no_repeat_partial_last_batch_and_stop():
    it = iterators.SerialIterator(list(range(5)), 2, repeat=False, shuffle=False)
    assert next(it) == [0, 1]
    assert next(it) == [2, 3]
    assert next(it) == [4]
    assert (it.epoch, it.is_new_epoch, it.epoch_detail) == (1, True, 1.0)
    for _ in range(2):
        with pytest.raises(StopIteration):
            next(it)
    assert it.epoch == 1


def test_no_repeat_for_loop_and_reset():
    it = iterators.SerialIterator(list(range(5)), 3, repeat=False, shuffle=False)
    assert list(it) == [[0, 1, 2], [3, 4]]
    assert list(it) == []
    it.reset()
    assert _epoch_attrs(it) == (0, False, 0.0, None)
    assert list(it) == [[0, 1, 2], [3, 4]]


def test_no_repeat_batch_larger_than_dataset():
    it = iterators.SerialIterator([0, 1, 2], 5, repeat=False, shuffle=False)
    assert list(it) == [[0, 1, 2]]


def test_shuffle_visits_every_example_once_per_epoch():
    dataset = list(range(10))
    it = iterators.SerialIterator(dataset, 5, shuffle=True)
    for _ in range(3):
        seen = next(it) + next(it)
        assert sorted(seen) == dataset
        assert it.is_new_epoch


def test_shuffle_none_shuffles_and_follows_numpy_seed():
    def run():
        numpy.random.seed(11)
        it = iterators.SerialIterator(list(range(30)), 30)
        return next(it)

    first = run()
    assert first != list(range(30))
    assert sorted(first) == list(range(30))
    assert run() == first


def test_shuffle_false_keeps_dataset_order():
    it = iterators.SerialIterator(list(range(4)), 4, shuffle=False)
    assert it.order_sampler is None
    assert [next(it) for _ in range(3)] == [[0, 1, 2, 3]] * 3


def test_positional_arguments_as_in_the_tutorial():
    it = iterators.SerialIterator(list(range(3)), 2, False, False)
    assert not it.repeat
    assert list(it) == [[0, 1], [2]]


def test_dataset_of_tuples():
    train = [(numpy.full(2, i), i % 2) for i in range(4)]
    it = iterators.SerialIterator(train, 2, shuffle=False)
    batch = next(it)
    assert len(batch) == 2
    assert batch[1][1] == 1
    numpy.testing.assert_array_equal(batch[1][0], [1, 1])


@pytest.mark.parametrize("shuffle", [True, False])
def test_shuffle_with_order_sampler_is_an_error(shuffle):
    sampler = iterators.ShuffleOrderSampler(numpy.random.RandomState(0))
    with pytest.raises(ValueError, match="shuffle is not None"):
        iterators.SerialIterator([1, 2], 1, shuffle=shuffle, order_sampler=sampler)


def test_order_sampler_returning_a_wrong_length():
    # The first order sets the epoch size; a later one must keep it.
    def sampler(current_order, current_position):
        return numpy.arange(len(current_order) + 1) % 3

    it = iterators.SerialIterator([1, 2, 3], 2, order_sampler=sampler)
    assert next(it) == [1, 2]
    # The next order is drawn when this batch reaches the end of the epoch.
    with pytest.raises(ValueError, match="length 5; expected length 4"):
        next(it)


def test_order_sampler_sets_the_epoch_size():
    # Each example twice per epoch: an epoch is 6 examples of a 3-example set.
    def sampler(current_order, current_position):
        return numpy.repeat(numpy.arange(3), 2)

    it = iterators.SerialIterator([1, 2, 3], 2, order_sampler=sampler)
    assert [next(it) for _ in range(3)] == [[1, 1], [2, 2], [3, 3]]
    assert it.is_new_epoch
    assert it.epoch == 1
    assert it.epoch_detail == pytest.approx(1.0)
    assert it.previous_epoch_detail == pytest.approx(4 / 6)


def test_order_sampler_returning_none():
    with pytest.raises(ValueError, match="returned None"):
        iterators.SerialIterator([1, 2, 3], 1, order_sampler=lambda o, p: None)


def test_order_sampler_must_be_callable():
    with pytest.raises(TypeError, match="order_sampler must be callable"):
        iterators.SerialIterator([1, 2, 3], 1, order_sampler=[2, 1, 0])


@pytest.mark.parametrize(
    ("batch_size", "error", "match"),
    [
        (0, ValueError, "batch_size must be positive, got 0"),
        (-3, ValueError, "batch_size must be positive, got -3"),
        (2.0, TypeError, "batch_size must be an int, not float"),
        (True, TypeError, "batch_size must be an int"),
        ("4", TypeError, "batch_size must be an int, not str"),
    ],
)
def test_bad_batch_size(batch_size, error, match):
    with pytest.raises(error, match=match):
        iterators.SerialIterator([1, 2, 3], batch_size)


def test_numpy_integer_batch_size():
    it = iterators.SerialIterator([1, 2, 3], numpy.int64(2), shuffle=False)
    assert it.batch_size == 2
    assert type(it.batch_size) is int


def test_empty_dataset_repeating_is_an_error():
    with pytest.raises(ValueError, match="empty dataset"):
        iterators.SerialIterator([], 2)


def test_empty_dataset_not_repeating_yields_nothing():
    it = iterators.SerialIterator([], 2, repeat=False)
    assert list(it) == []
    assert list(it) == []


def test_dataset_without_length():
    with pytest.raises(TypeError, match="needs a dataset with a length"):
        iterators.SerialIterator(iter([1, 2]), 1)


def test_dataset_error_keeps_the_position():
    calls = {"fail": True}

    class Flaky:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 3 and calls.pop("fail", False):
                raise OSError("transient")
            return i

    it = iterators.SerialIterator(Flaky(), 2, shuffle=False)
    assert next(it) == [0, 1]
    with pytest.raises(OSError, match="transient"):
        next(it)
    assert it.epoch_detail == 0.5
    assert next(it) == [2, 3]


def test_next_method_and_context_manager():
    with iterators.SerialIterator([1, 2, 3], 2, shuffle=False) as it:
        assert it.next() == [1, 2]


def _save_state(it):
    target = {}
    serializers.DictionarySerializer(target).save(it)
    return target


@pytest.mark.parametrize("shuffle", [True, False])
def test_serialize_entries(shuffle):
    it = iterators.SerialIterator(list(range(5)), 2, shuffle=shuffle)
    next(it)
    target = _save_state(it)
    expected = {
        "current_position",
        "epoch",
        "is_new_epoch",
        "previous_epoch_detail",
    }
    if shuffle:
        expected.add("order")
    assert set(target) == expected
    assert int(target["current_position"]) == 2
    assert float(target["previous_epoch_detail"]) == 0.0


def _resume_pair(tmp_path, n_before):
    sampler = iterators.ShuffleOrderSampler(numpy.random.RandomState(5))
    it = iterators.SerialIterator(list(range(7)), 3, order_sampler=sampler)
    for _ in range(n_before):
        next(it)
    path = tmp_path / "it.npz"
    serializers.save_npz(path, it)
    resumed = iterators.SerialIterator(
        list(range(7)),
        3,
        order_sampler=iterators.ShuffleOrderSampler(numpy.random.RandomState(99)),
    )
    serializers.load_npz(path, resumed)
    return it, resumed


@pytest.mark.parametrize("n_before", [0, 1, 2, 3])
def test_resume_continues_the_same_epoch_order(tmp_path, n_before):
    it, resumed = _resume_pair(tmp_path, n_before)
    assert _epoch_attrs(resumed) == _epoch_attrs(it)
    assert resumed.current_position == it.current_position
    # The rest of the current epoch comes out in the same order.
    remaining = 7 - it.current_position
    a = [x for _ in range(-(-remaining // 3)) for x in next(it)][:remaining]
    b = [x for _ in range(-(-remaining // 3)) for x in next(resumed)][:remaining]
    assert a == b
    assert _epoch_attrs(resumed) == _epoch_attrs(it)


def test_serialize_round_trip_in_memory():
    it = iterators.SerialIterator(list(range(4)), 3, shuffle=False)
    next(it)
    next(it)
    target = _save_state(it)
    resumed = iterators.SerialIterator(list(range(4)), 3, shuffle=False)
    serializers.NpzDeserializer(target).load(resumed)
    assert _epoch_attrs(resumed) == (1, True, 1.5, pytest.approx(0.75))
    assert next(resumed) == next(it) == [2, 3, 0]


def test_loading_does_not_write_into_the_old_order_array():
    it = iterators.SerialIterator(list(range(5)), 2)
    old_order = it._state.order
    kept = old_order.copy()
    other = iterators.SerialIterator(list(range(5)), 2)
    next(other)
    serializers.NpzDeserializer(_save_state(other)).load(it)
    numpy.testing.assert_array_equal(old_order, kept)
    numpy.testing.assert_array_equal(it._state.order, other._state.order)


def test_deserialize_legacy_keys():
    it = iterators.SerialIterator(list(range(4)), 2)
    next(it)
    target = _save_state(it)
    target["_order"] = target.pop("order")
    del target["previous_epoch_detail"]
    resumed = iterators.SerialIterator(list(range(4)), 2)
    serializers.NpzDeserializer(target).load(resumed)
    numpy.testing.assert_array_equal(resumed._state.order, it._state.order)
    # Guessed from the position: one batch before 0.5 is 0.0.
    assert resumed.previous_epoch_detail == 0.0
    assert resumed.epoch_detail == 0.5


def test_deserialize_legacy_at_start_has_no_previous_detail():
    it = iterators.SerialIterator(list(range(4)), 2, shuffle=False)
    target = _save_state(it)
    del target["previous_epoch_detail"]
    serializers.NpzDeserializer(target).load(it)
    assert it.previous_epoch_detail is None


def test_deserialize_order_of_another_length_is_an_error():
    it = iterators.SerialIterator(list(range(4)), 2)
    target = _save_state(it)
    resumed = iterators.SerialIterator(list(range(6)), 2)
    with pytest.raises(ValueError, match="shape mismatch for 'order'"):
        serializers.NpzDeserializer(target).load(resumed)


def test_save_npz_to_file_object():
    it = iterators.SerialIterator(list(range(4)), 3, shuffle=False)
    next(it)
    buf = io.BytesIO()
    serializers.save_npz(buf, it)
    buf.seek(0)
    resumed = iterators.SerialIterator(list(range(4)), 3, shuffle=False)
    serializers.load_npz(buf, resumed)
    assert resumed.current_position == 3
