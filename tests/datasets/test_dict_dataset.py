import numpy
import pytest

from chainer import dataset
from chainer import datasets


@pytest.fixture
def ds():
    return datasets.DictDataset(
        x=numpy.arange(8).reshape(4, 2), t=[10, 20, 30, 40], name=list("abcd")
    )


def test_int_index_gives_dict(ds):
    assert len(ds) == 4
    example = ds[1]
    assert set(example) == {"x", "t", "name"}
    numpy.testing.assert_array_equal(example["x"], [2, 3])
    assert example["t"] == 20
    assert ds[-1]["name"] == "d"


def test_slice_and_lists(ds):
    assert [e["name"] for e in ds[1:3]] == ["b", "c"]
    assert [e["t"] for e in ds[[3, 0]]] == [40, 10]
    assert [e["name"] for e in ds[numpy.array([False, True, False, True])]] == [
        "b",
        "d",
    ]
    assert ds[4:] == []


def test_out_of_range(ds):
    with pytest.raises(IndexError, match="index 4 is out of range for DictDataset"):
        ds[4]
    with pytest.raises(IndexError, match="index -5 is out of range"):
        ds[-5]


def test_errors():
    with pytest.raises(ValueError, match="at least one dataset"):
        datasets.DictDataset()
    with pytest.raises(
        ValueError, match="'b' has length 1 while dataset 'a' has length 2"
    ):
        datasets.DictDataset(a=[1, 2], b=[1])


def test_concat_examples_of_dicts(ds):
    batch = dataset.concat_examples(ds[[0, 2]])
    numpy.testing.assert_array_equal(batch["x"], [[0, 1], [4, 5]])
    numpy.testing.assert_array_equal(batch["t"], [10, 30])
