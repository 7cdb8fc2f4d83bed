import numpy
import pytest

from chainer.dataset import tabular


@pytest.fixture
def left():
    return tabular.from_data((("a", numpy.arange(4)), ("b", list("pqrs"))))


@pytest.fixture
def right():
    return tabular.from_data({"c": numpy.arange(4) * 10, "d": lambda i: -i}, size=4)


def test_join_columns(left, right):
    ds = left.join(right)
    assert ds.keys == ("a", "b", "c", "d")
    assert ds.mode is tuple
    assert len(ds) == 4
    assert ds[2] == (2, "r", 20, -2)
    assert ds.asdict()[3] == {"a": 3, "b": "s", "c": 30, "d": -3}


def test_select_columns_across_datasets(left, right):
    ds = left.join(right)
    assert ds.slice[1:3, ("d", "a")][:] == [(-1, 1), (-2, 2)]
    with pytest.raises(ValueError, match="more than once"):
        ds.slice[:, ("c", "c")]
    assert ds.slice[[0], "c"][0] == 0


def test_mode_of_unary_datasets_becomes_tuple():
    x = tabular.from_data(("x", [1, 2]))
    y = tabular.from_data(("y", [3, 4]))
    ds = x.join(y)
    assert ds.mode is tuple
    assert ds[1] == (2, 4)
    assert tabular.from_data([1, 2]).join(tabular.from_data([3, 4]))[0] == (1, 3)


def test_mode_comes_from_first_non_unary(right):
    x = tabular.from_data(("x", [1, 2, 3, 4]))
    assert x.join(right).mode is dict


def test_converter_from_first(left, right):
    ds = left.with_converter(lambda *cols: len(cols)).join(right)
    assert ds.convert(ds.fetch()) == 4


def test_join_errors(left):
    with pytest.raises(ValueError, match="same length"):
        left.join(tabular.from_data(("z", [1])))
    with pytest.raises(ValueError, match="unique keys"):
        left.join(tabular.from_data(("a", [1, 2, 3, 4])))
    with pytest.raises(TypeError, match="takes TabularDatasets"):
        left.join(numpy.arange(4))
