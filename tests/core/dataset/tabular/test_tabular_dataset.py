import numpy
import pytest

from chainer import dataset


class Grid(dataset.TabularDataset):
    """4 rows x 3 columns of arange(12), returned as lists, in a chosen mode."""

    def __init__(self, mode=tuple, keys=("a", "b", "c")):
        self._mode = mode
        self._keys = keys
        self.requests = []

    def __len__(self):
        return 4

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        self.requests.append((indices, key_indices))
        data = numpy.arange(12).reshape(4, 3)[:, : len(self._keys)]
        if indices is not None:
            data = data[indices]
        if key_indices is not None:
            data = data[:, list(key_indices)]
        return tuple(col.tolist() for col in data.T)


def test_int_index_by_mode():
    assert Grid(tuple)[1] == (3, 4, 5)
    assert Grid(dict)[1] == {"a": 3, "b": 4, "c": 5}
    assert Grid(None, keys=("a",))[1] == 3


def test_negative_and_out_of_range_index():
    assert Grid()[-1] == (9, 10, 11)
    with pytest.raises(IndexError, match="out of range"):
        Grid()[4]
    with pytest.raises(IndexError, match="out of range"):
        Grid()[-5]


def test_slice_and_list_fetch_in_one_call():
    ds = Grid()
    assert ds[1:3] == [(3, 4, 5), (6, 7, 8)]
    assert ds.requests == [(slice(1, 3, 1), None)]
    assert ds[::-2] == [(9, 10, 11), (3, 4, 5)]
    assert ds[[2, -4]] == [(6, 7, 8), (0, 1, 2)]
    assert ds[numpy.array([False, True, False, True])] == [(3, 4, 5), (9, 10, 11)]
    assert Grid(dict)[2:] == [{"a": 6, "b": 7, "c": 8}, {"a": 9, "b": 10, "c": 11}]
    assert Grid(None, keys=("a",))[:2] == [0, 3]


def test_bad_index_types():
    with pytest.raises(TypeError, match="indexed by an int"):
        Grid()["a"]
    with pytest.raises(IndexError, match="boolean mask"):
        Grid()[numpy.array([True])]
    with pytest.raises(TypeError, match="row indices must be integers"):
        Grid()[[0.5]]


def test_iteration():
    assert list(Grid(None, keys=("a",))) == [0, 3, 6, 9]
    assert len(list(Grid())) == 4


def test_fetch_by_mode():
    assert Grid(tuple).fetch() == ([0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11])
    assert Grid(dict).fetch()["b"] == [1, 4, 7, 10]
    assert Grid(None, keys=("a",)).fetch() == [0, 3, 6, 9]


def test_default_convert_makes_arrays():
    a, b, c = Grid().convert(Grid().fetch())
    assert isinstance(a, numpy.ndarray)
    assert isinstance(b, numpy.ndarray)
    numpy.testing.assert_array_equal(c, [2, 5, 8, 11])
    d = Grid(dict).convert(Grid(dict).fetch())
    numpy.testing.assert_array_equal(d["a"], [0, 3, 6, 9])
    single = Grid(None, keys=("a",))
    arr = numpy.arange(3)
    assert single.convert(arr) is arr
    stacked = single.convert([numpy.zeros(2), numpy.ones(2)])
    assert stacked.shape == (2, 2)


def test_with_converter():
    ds = Grid().with_converter(lambda a, b, c: sum(a) + sum(b) + sum(c))
    assert ds.convert(ds.fetch()) == sum(range(12))
    assert ds[0] == (0, 1, 2)
    as_dict = Grid(dict).with_converter(lambda a, b, c: (a, c))
    assert as_dict.convert(as_dict.fetch()) == ([0, 3, 6, 9], [2, 5, 8, 11])
    single = Grid(None, keys=("a",)).with_converter(len)
    assert single.convert(single.fetch()) == 4
    with pytest.raises(TypeError, match="converter must be callable"):
        Grid().with_converter(3)


def test_incomplete_subclass_cannot_be_instantiated():
    class NoGetExamples(dataset.TabularDataset):
        def __len__(self):
            return 0

        keys = ("a",)
        mode = None

    with pytest.raises(TypeError, match="get_examples"):
        NoGetExamples()


def test_is_a_dataset_mixin():
    assert isinstance(Grid(), dataset.DatasetMixin)
    assert Grid().get_example(2) == (6, 7, 8)
