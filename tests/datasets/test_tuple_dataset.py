import numpy
import pytest

import chainer
from chainer import dataset
from chainer import datasets
from chainer import iterators


@pytest.fixture
def columns():
    x = numpy.arange(12, dtype=numpy.float32).reshape(6, 2)
    t = numpy.arange(6, dtype=numpy.int32) * 10
    names = ["a", "b", "c", "d", "e", "f"]
    return x, t, names


def test_int_index_gives_tuple(columns):
    x, t, names = columns
    ds = datasets.TupleDataset(x, t, names)
    assert len(ds) == 6
    example = ds[2]
    assert isinstance(example, tuple)
    numpy.testing.assert_array_equal(example[0], x[2])
    assert example[1] == 20
    assert example[2] == "c"


def test_negative_index(columns):
    ds = datasets.TupleDataset(*columns)
    assert ds[-1][2] == "f"
    assert ds[-6][2] == "a"


@pytest.mark.parametrize("index", [6, -7, 100])
def test_out_of_range(columns, index):
    ds = datasets.TupleDataset(*columns)
    with pytest.raises(IndexError, match=f"index {index} is out of range.*length 6"):
        ds[index]


def test_slice_gives_list_of_tuples(columns):
    x, t, names = columns
    ds = datasets.TupleDataset(x, t, names)
    batch = ds[1:5:2]
    assert isinstance(batch, list)
    assert [type(e) for e in batch] == [tuple, tuple]
    assert [e[2] for e in batch] == ["b", "d"]
    numpy.testing.assert_array_equal(batch[1][0], x[3])
    assert ds[10:] == []


@pytest.mark.parametrize(
    "index",
    [[4, 0, -1], numpy.array([4, 0, 5]), numpy.array([4, 0, 5], dtype=numpy.uint8)],
)
def test_index_list_and_array(columns, index):
    x, t, names = columns
    ds = datasets.TupleDataset(x, t, names)
    batch = ds[index]
    assert [e[2] for e in batch] == ["e", "a", "f"]
    assert [int(e[1]) for e in batch] == [40, 0, 50]
    numpy.testing.assert_array_equal(batch[0][0], x[4])


def test_boolean_mask(columns):
    ds = datasets.TupleDataset(*columns)
    mask = numpy.array([True, False, False, True, False, True])
    assert [e[2] for e in ds[mask]] == ["a", "d", "f"]
    with pytest.raises(IndexError, match="boolean index of shape"):
        ds[mask[:3]]


def test_empty_index_list(columns):
    ds = datasets.TupleDataset(*columns)
    assert ds[[]] == []


def test_zero_dim_array_is_an_int(columns):
    ds = datasets.TupleDataset(*columns)
    assert ds[numpy.array(3)][2] == "d"
    assert ds[numpy.int64(3)][2] == "d"


def test_bad_index_list(columns):
    ds = datasets.TupleDataset(*columns)
    with pytest.raises(IndexError, match="index 9 is out of range"):
        ds[[0, 9]]
    with pytest.raises(IndexError, match="dtype float64"):
        ds[[0.5, 1.0]]


def test_bad_index_type(columns):
    ds = datasets.TupleDataset(*columns)
    with pytest.raises(TypeError, match="not float"):
        ds[1.5]
    with pytest.raises(TypeError, match="not str"):
        ds["a"]


def test_no_datasets():
    with pytest.raises(ValueError, match="at least one dataset"):
        datasets.TupleDataset()


def test_lengths_must_agree():
    with pytest.raises(
        ValueError, match="dataset 1 has length 2 while dataset 0 has length 3"
    ):
        datasets.TupleDataset([1, 2, 3], [1, 2])


def test_nested_datasets_and_iteration():
    inner = datasets.TupleDataset([1, 2, 3], [4, 5, 6])
    ds = datasets.TupleDataset(inner, numpy.array([7, 8, 9]))
    assert ds[1] == ((2, 5), 8)
    assert [e[0] for e in ds[[2, 0]]] == [(3, 6), (1, 4)]
    assert [e[0][0] for e in ds] == [1, 2, 3]


def test_works_with_serial_iterator_and_concat_examples():
    x = numpy.random.rand(10, 3).astype(numpy.float32)
    t = numpy.arange(10, dtype=numpy.int32)
    ds = datasets.TupleDataset(x, t)
    it = iterators.SerialIterator(ds, 4, repeat=False, shuffle=True)
    seen = []
    for batch in it:
        bx, bt = dataset.concat_examples(batch)
        assert bx.shape == (len(batch), 3)
        assert bt.dtype == numpy.int32
        numpy.testing.assert_array_equal(bx, x[bt])
        seen.extend(bt.tolist())
    assert sorted(seen) == list(range(10))
    # A slice batch converts too (the fast path of ordered iterators).
    bx, bt = chainer.dataset.concat_examples(ds[2:6])
    numpy.testing.assert_array_equal(bx, x[2:6])
    numpy.testing.assert_array_equal(bt, t[2:6])
