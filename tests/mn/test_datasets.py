"""scatter_dataset, scatter_index and create_empty_dataset on one process.

Their splits over 2 and 3 processes are checked by programs/comm_methods.py
(see test_communicators.py).
"""

import numpy
import pytest

import chainermn
from chainer import datasets

pytestmark = pytest.mark.mpi


def test_scatter_dataset_on_one_process(comm):
    part = chainermn.scatter_dataset(list(range(7)), comm)
    assert isinstance(part, datasets.SubDataset)
    assert list(part) == list(range(7))


def test_scatter_dataset_shuffles_with_the_seed(comm):
    part = chainermn.scatter_dataset(list(range(7)), comm, shuffle=True, seed=5)
    assert list(part) == list(numpy.random.RandomState(5).permutation(7))


def test_scatter_dataset_takes_an_mpi4py_communicator(comm):
    part = chainermn.scatter_dataset(["a", "b"], comm.mpi_comm)
    assert list(part) == ["a", "b"]


def test_scatter_dataset_errors(comm):
    with pytest.raises(ValueError, match="has no dataset"):
        chainermn.scatter_dataset(None, comm)
    with pytest.raises(ValueError, match="root must be a rank"):
        chainermn.scatter_dataset([1], comm, root=1)
    with pytest.raises(TypeError, match="communicator"):
        chainermn.scatter_dataset([1], "comm")


_calls = []


def _record(x):
    _calls.append(x)
    return x


def test_scatter_dataset_keeps_lazy_datasets_lazy(comm):
    # The dataset object travels, not its examples: a transform still runs
    # at each access.
    _calls.clear()
    lazy = datasets.TransformDataset(list(range(4)), _record)
    part = chainermn.scatter_dataset(lazy, comm)
    assert _calls == []
    assert part[2] == 2
    assert _calls == [2]


def test_scatter_index(comm):
    assert chainermn.scatter_index(9, comm) == (0, 9)
    assert chainermn.scatter_index(9, comm, force_equal_length=False) == (0, 9)
    with pytest.raises(ValueError, match="non-negative"):
        chainermn.scatter_index(-1, comm)


def test_create_empty_dataset():
    empty = chainermn.create_empty_dataset(numpy.zeros((5, 2)))
    assert len(empty) == 5
    assert empty[4] == ()
    assert empty[-5] == ()
    assert empty[1:3] == [(), ()]
    with pytest.raises(IndexError, match="out of range"):
        empty[5]
