"""The seeds' dataset-abstraction examples (chainer.dataset), run as written.

References read ``001:2470`` = line 2470 of the seed file starting with
``001_``.
"""

import numpy as np
import pytest

import chainer
from chainer import dataset


class Squares(dataset.DatasetMixin):
    # 001:2470-2493: implement __len__ and get_example; slicing comes free.

    def __init__(self, n):
        self.values = np.arange(n, dtype=np.float32)

    def __len__(self):
        return len(self.values)

    def get_example(self, i):
        # value * value, not value ** 2: NumPy 1.x promotes float32 ** int to float64
        return self.values[i] * self.values[i], np.int32(i % 2)


def test_dataset_mixin_indexing_and_slicing():
    # 001:2470-2480: __getitem__ supports ints and slices via get_example.
    ds = Squares(6)
    x, t = ds[3]
    assert x == 9.0
    assert t == 1
    assert ds[1:4] == [(1.0, 1), (4.0, 0), (9.0, 1)]
    assert [x for x, _ in ds[::2]] == [0.0, 4.0, 16.0]
    assert ds[-1] == (25.0, 1)


def test_dataset_mixin_index_error_ends_iteration():
    # 001:2490-2492: get_example raises IndexError for an invalid index.
    ds = Squares(3)
    with pytest.raises(IndexError):
        ds[3]
    assert len(list(ds)) == 3


def test_dataset_mixin_without_get_example_is_an_error():
    # 001:2489-2491: implementations must override get_example.
    class Empty(dataset.DatasetMixin):
        def __len__(self):
            return 1

    with pytest.raises(TypeError, match="get_example"):
        Empty()[0]


def test_concat_examples_of_tuples():
    # 001:2531-2541: corresponding arrays of all examples are stacked.
    ds = Squares(4)
    x, t = dataset.concat_examples(ds[0:3])
    np.testing.assert_array_equal(x, np.array([0.0, 1.0, 4.0], dtype=np.float32))
    np.testing.assert_array_equal(t, np.array([0, 1, 0], dtype=np.int32))
    assert x.dtype == np.float32
    assert t.dtype == np.int32


def test_concat_examples_of_arrays_and_dicts():
    # 001:2536-2545: plain arrays -> one array; dicts -> dict of arrays.
    batch = [np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32)]
    stacked = dataset.concat_examples(batch)
    assert stacked.shape == (2, 2, 3)
    batch = [{"x": np.zeros(2), "y": 1}, {"x": np.ones(2), "y": 2}]
    result = dataset.concat_examples(batch)
    assert sorted(result) == ["x", "y"]
    np.testing.assert_array_equal(result["x"], [[0.0, 0.0], [1.0, 1.0]])
    np.testing.assert_array_equal(result["y"], [1, 2])


def test_concat_examples_padding():
    # 001:2546-2550: padding builds the minimum shape holding every example.
    batch = [np.zeros(2, np.float32), np.ones(3, np.float32)]
    padded = dataset.concat_examples(batch, padding=-1)
    np.testing.assert_array_equal(padded, [[0.0, 0.0, -1.0], [1.0, 1.0, 1.0]])
    assert padded.dtype == np.float32
    with pytest.raises(ValueError):
        dataset.concat_examples(batch)


def test_concat_examples_device_argument():
    # 001:2551-2553, 000:2760: a negative device id means host memory.
    batch = [(np.zeros(2, np.float32), 0), (np.ones(2, np.float32), 1)]
    x, t = dataset.concat_examples(batch, -1)
    assert isinstance(x, np.ndarray)
    np.testing.assert_array_equal(t, [0, 1])


def test_concat_examples_of_an_empty_batch_is_an_error():
    # Bad input for concat_examples (001:2531): a batch has examples.
    with pytest.raises(ValueError):
        dataset.concat_examples([])


def test_to_device():
    # 001:2557-2574: None leaves the array, a negative id sends it to CPU.
    x = np.arange(3)
    assert dataset.to_device(None, x) is x
    y = dataset.to_device(-1, x)
    assert isinstance(y, np.ndarray)
    np.testing.assert_array_equal(y, x)


class Countdown(dataset.Iterator):
    # 001:2495-2530: the Iterator interface (batch_size, epoch,
    # epoch_detail, is_new_epoch, __next__).

    def __init__(self, n, batch_size):
        self.n = n
        self.batch_size = batch_size
        self.epoch = 0
        self.is_new_epoch = False
        self.position = 0

    def __next__(self):
        if self.epoch >= 1:
            raise StopIteration
        batch = list(range(self.position, min(self.position + self.batch_size, self.n)))
        self.position += len(batch)
        self.is_new_epoch = self.position >= self.n
        if self.is_new_epoch:
            self.epoch += 1
        return batch

    @property
    def epoch_detail(self):
        return self.epoch + self.position / self.n if self.epoch == 0 else 1.0


def test_iterator_protocol_and_next_alias():
    # 001:2495-2530: __next__, next() alias, epoch counters, finalize().
    it = Countdown(5, 2)
    assert it.next() == [0, 1]
    assert it.epoch_detail == pytest.approx(0.4)
    # The last batch may be smaller (001:2504).
    assert list(it) == [[2, 3], [4]]
    assert it.is_new_epoch
    assert it.epoch == 1
    it.finalize()


def test_minibatch_of_iterator_through_concat_examples():
    # 000:2760-2766: image_train, target_train = concat_examples(batch, gpu_id).
    ds = Squares(6)
    batch = ds[0:4]
    image_train, target_train = dataset.concat_examples(batch, -1)
    assert image_train.shape == (4,)
    assert target_train.shape == (4,)
    variable = chainer.Variable(image_train)
    assert variable.shape == (4,)
