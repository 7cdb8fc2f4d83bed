import numpy
import pytest

from chainer import dataset


class Squares(dataset.DatasetMixin):
    def __init__(self, n=5):
        self.n = n
        self.calls = []

    def __len__(self):
        return self.n

    def get_example(self, i):
        self.calls.append(i)
        return i * i


def test_int_index():
    ds = Squares()
    assert ds[0] == 0
    assert ds[3] == 9


def test_negative_index_counts_from_end():
    ds = Squares()
    assert ds[-1] == 16
    assert ds[-5] == 0
    assert ds.calls == [4, 0]


@pytest.mark.parametrize("index", [5, -6, 100])
def test_out_of_range_raises_index_error(index):
    ds = Squares()
    with pytest.raises(IndexError, match="out of range"):
        ds[index]
    assert ds.calls == []


def test_numpy_integer_index():
    assert Squares()[numpy.int64(2)] == 4


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        (slice(1, 4), [1, 4, 9]),
        (slice(None, None, -2), [16, 4, 0]),
        (slice(3, 100), [9, 16]),
        (slice(4, 1), []),
    ],
)
def test_slice(index, expected):
    assert Squares()[index] == expected


def test_list_and_array_indices():
    ds = Squares()
    assert ds[[3, -1, 0]] == [9, 16, 0]
    assert ds[numpy.array([1, 2])] == [1, 4]
    assert ds[numpy.array([True, False, True, False, True])] == [0, 4, 16]


def test_bad_list_entries():
    ds = Squares()
    with pytest.raises(IndexError, match="out of range"):
        ds[[0, 5]]
    with pytest.raises(IndexError, match="must be integers"):
        ds[[0, 1.5]]
    with pytest.raises(IndexError, match="boolean index"):
        ds[numpy.array([True, False])]
    with pytest.raises(IndexError, match="1-d integer or boolean"):
        ds[numpy.array([0.5])]


def test_iteration_stops_at_end():
    assert list(Squares(3)) == [0, 1, 4]


def test_non_integer_index_goes_to_get_example():
    class Named(dataset.DatasetMixin):
        def __len__(self):
            return 1

        def get_example(self, i):
            return {"a": 1}[i]

    assert Named()["a"] == 1


def test_missing_get_example_is_a_clear_error():
    class NoExample(dataset.DatasetMixin):
        def __len__(self):
            return 3

    with pytest.raises(TypeError, match="must override get_example"):
        NoExample()[0]
