import numpy
import pytest

from chainer import datasets


def test_transform_applied_on_access():
    calls = []

    def transform(example):
        calls.append(example)
        x, t = example
        return x * 2, t + 1

    base = datasets.TupleDataset(numpy.arange(4), numpy.arange(4))
    ds = datasets.TransformDataset(base, transform)
    assert calls == []
    assert len(ds) == 4
    assert ds[1] == (2, 2)
    assert ds[-1] == (6, 4)
    assert ds[1:3] == [(2, 2), (4, 3)]
    assert ds[[3, 0]] == [(6, 4), (0, 1)]
    assert len(calls) == 6


def test_out_of_range():
    ds = datasets.TransformDataset([1, 2], str)
    with pytest.raises(IndexError, match="out of range"):
        ds[2]


def test_transform_must_be_callable():
    with pytest.raises(TypeError, match="transform must be callable, got int"):
        datasets.TransformDataset([1, 2], 3)
