import numpy
import pytest

from chainer.dataset import tabular


def _ds(start, stop, mode=tuple):
    data = {"a": numpy.arange(start, stop), "b": [f"b{i}" for i in range(start, stop)]}
    if mode is dict:
        return tabular.from_data(data)
    return tabular.from_data(tuple(data.items()))


def test_concat_rows():
    ds = _ds(0, 3).concat(_ds(3, 5), _ds(5, 9))
    assert len(ds) == 9
    assert ds.keys == ("a", "b")
    assert ds.mode is tuple
    assert [ds[i][0] for i in range(9)] == list(range(9))
    assert ds[4] == (4, "b4")


def test_fetch_concatenates_arrays_and_lists():
    a, b = _ds(0, 2).concat(_ds(2, 4)).fetch()
    assert isinstance(a, numpy.ndarray)
    assert a.tolist() == [0, 1, 2, 3]
    assert b == ["b0", "b1", "b2", "b3"]


@pytest.mark.parametrize(
    "index",
    [
        slice(None),
        slice(2, 7),
        slice(1, 2),
        slice(None, None, 3),
        slice(None, None, -1),
        slice(8, 0, -2),
        slice(5, 5),
    ],
)
def test_slices_match_a_single_dataset(index):
    ds = _ds(0, 3).concat(_ds(3, 5), _ds(5, 9))
    expected = _ds(0, 9)[index]
    assert [(int(a), b) for a, b in ds[index]] == [(int(a), b) for a, b in expected]


def test_lists_keep_their_order():
    ds = _ds(0, 3).concat(_ds(3, 5), _ds(5, 9))
    rows = [8, 0, 4, 3, -1, 1]
    assert [int(r[0]) for r in ds[rows]] == [8, 0, 4, 3, 8, 1]
    a, b = ds.slice[rows].fetch()
    assert a.tolist() == [8, 0, 4, 3, 8, 1]
    assert b == ["b8", "b0", "b4", "b3", "b8", "b1"]
    assert ds[[]] == []


def test_keys_and_converter_come_from_the_first():
    first = _ds(0, 2).with_converter(lambda a, b: "first")
    ds = first.concat(_ds(2, 3))
    assert ds.convert(ds.fetch()) == "first"
    assert _ds(0, 2, dict).concat(_ds(2, 3, dict))[2] == {"a": 2, "b": "b2"}


def test_concat_errors():
    with pytest.raises(ValueError, match="same keys"):
        _ds(0, 2).concat(tabular.from_data((("a", [1]), ("c", [2]))))
    with pytest.raises(TypeError, match="takes TabularDatasets"):
        _ds(0, 2).concat([1, 2])
