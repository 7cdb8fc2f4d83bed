import numpy
import pytest

from chainer.dataset import tabular


@pytest.fixture
def ds():
    return tabular.from_data((("a", numpy.arange(3)), ("b", ["x", "y", "z"])))


def test_asdict(ds):
    view = ds.asdict()
    assert view.mode is dict
    assert view.keys == ("a", "b")
    assert len(view) == 3
    assert view[1] == {"a": 1, "b": "y"}
    assert view.fetch()["b"] == ["x", "y", "z"]


def test_astuple_round_trip(ds):
    back = ds.asdict().astuple()
    assert back.mode is tuple
    assert back[2] == (2, "z")


def test_astuple_of_a_single_column():
    single = tabular.from_data(("a", [5, 6]))
    assert single[0] == 5
    assert single.astuple()[0] == (5,)
    assert single.asdict()[1] == {"a": 6}


def test_views_keep_the_converter(ds):
    conv = ds.with_converter(lambda a, b: ("converted", len(b)))
    view = conv.asdict()
    assert view.convert(view.fetch()) == ("converted", 3)


def test_bad_input_for_mode_views():
    with pytest.raises(TypeError, match="converter must be callable"):
        tabular.from_data([1]).asdict().with_converter("nope")
