import numpy
import pytest

from chainer import dataset
from chainer.dataset import tabular


def test_single_list():
    ds = tabular.from_data([0, 1, 2])
    assert isinstance(ds, dataset.TabularDataset)
    assert ds.mode is None
    assert len(ds.keys) == 1
    assert ds[1] == 1
    assert ds[:] == [0, 1, 2]


def test_single_array_is_not_copied():
    x = numpy.arange(6).reshape(3, 2)
    ds = tabular.from_data(x)
    assert ds.fetch() is x
    numpy.testing.assert_array_equal(ds[2], [4, 5])


def test_named_column():
    ds = tabular.from_data(("a", numpy.arange(3)))
    assert ds.keys == ("a",)
    assert ds.mode is None


def test_tuple_of_columns():
    ds = tabular.from_data(([0, 1, 2], [3, 4, 5]))
    assert ds.mode is tuple
    assert ds[0] == (0, 3)
    named = tabular.from_data((("a", [0, 1, 2]), ("b", [3, 4, 5])))
    assert named.keys == ("a", "b")
    assert named[2] == (2, 5)


def test_unnamed_keys_are_unique_across_datasets():
    x = tabular.from_data([1, 2])
    y = tabular.from_data([3, 4])
    assert x.keys != y.keys
    assert x.join(y)[1] == (2, 4)


def test_dict_of_columns():
    ds = tabular.from_data({"a": [0, 1, 2], "b": numpy.array([3, 4, 5])})
    assert ds.mode is dict
    assert ds[1] == {"a": 1, "b": 4}


def test_callable_columns():
    calls = []

    def square(i):
        calls.append(i)
        return i * i

    ds = tabular.from_data(("sq", square), size=10)
    assert len(ds) == 10
    assert ds[5] == 25
    assert ds[-1] == 81
    assert ds[2:5] == [4, 9, 16]
    assert calls == [5, 9, 2, 3, 4]


def test_multi_key_callable_returns_tuple_or_dict():
    ds = tabular.from_data((("x", "y"), lambda i: (i, -i)), size=3)
    assert ds.keys == ("x", "y")
    assert ds.mode is tuple
    assert ds[2] == (2, -2)
    calls = []

    def both(i):
        calls.append(i)
        return {"y": -i, "x": i}

    mixed = tabular.from_data({"a": [7, 8, 9], ("x", "y"): both})
    assert mixed[1] == {"a": 8, "x": 1, "y": -1}
    assert calls == [1]  # computed once for both keys
    assert mixed.slice[:, "y"].fetch() == [0, -1, -2]


def test_size_inferred_from_lists():
    ds = tabular.from_data((("a", [1, 2]), ("b", lambda i: i + 100)))
    assert len(ds) == 2
    assert ds[1] == (2, 101)


def test_from_data_errors():
    with pytest.raises(ValueError, match="size is required"):
        tabular.from_data(("a", lambda i: i))
    with pytest.raises(ValueError, match="same length"):
        tabular.from_data(([1, 2], [1, 2, 3]))
    with pytest.raises(ValueError, match="same length"):
        tabular.from_data([1, 2], size=3)
    with pytest.raises(ValueError, match="non-negative int"):
        tabular.from_data(("a", lambda i: i), size=-1)
    with pytest.raises(ValueError, match="keys must be unique"):
        tabular.from_data((("a", [1]), ("a", [2])))
    with pytest.raises(TypeError, match="must be a list, an array or a callable"):
        tabular.from_data(("a", 3))
    with pytest.raises(TypeError, match="computed by a callable"):
        tabular.from_data({("a", "b"): [1, 2]})
    with pytest.raises(TypeError, match="dict keys must be strings"):
        tabular.from_data({1: [1]})
    with pytest.raises(TypeError, match="a column must be"):
        tabular.from_data(42)
    with pytest.raises(ValueError, match="at least one column"):
        tabular.from_data({})
    bad = tabular.from_data((("x", "y"), lambda i: i), size=2)
    with pytest.raises(ValueError, match="must return a tuple of 2 values"):
        bad[0]
