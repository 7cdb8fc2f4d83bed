import numpy
import pytest

from chainer import datasets


def test_concatenation():
    ds = datasets.ConcatenatedDataset([0, 1, 2], numpy.array([3, 4]), [], ["five"])
    assert len(ds) == 6
    assert [ds[i] for i in range(6)] == [0, 1, 2, 3, 4, "five"]
    assert ds[-1] == "five"
    assert ds[-4] == 2
    assert ds[1:5] == [1, 2, 3, 4]
    assert ds[[5, 0]] == ["five", 0]


def test_out_of_range():
    ds = datasets.ConcatenatedDataset([0, 1], [2])
    with pytest.raises(IndexError, match="index 3 is out of range"):
        ds[3]
    with pytest.raises(IndexError, match="index -4 is out of range"):
        ds[-4]
    with pytest.raises(IndexError, match="ConcatenatedDataset"):
        ds.get_example(3)


def test_get_example_negative():
    ds = datasets.ConcatenatedDataset([0, 1], [2])
    assert ds.get_example(-1) == 2


def test_empty():
    ds = datasets.ConcatenatedDataset()
    assert len(ds) == 0
    assert ds[:] == []
    with pytest.raises(IndexError):
        ds[0]


def test_nested_datasets():
    a = datasets.TupleDataset([1, 2], [3, 4])
    b = datasets.TupleDataset([5], [6])
    ds = datasets.ConcatenatedDataset(a, b)
    assert list(ds) == [(1, 3), (2, 4), (5, 6)]
