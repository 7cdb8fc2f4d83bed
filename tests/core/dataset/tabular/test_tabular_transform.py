import numpy
import pytest

from chainer.dataset import tabular


@pytest.fixture
def ds():
    return tabular.from_data((("a", numpy.arange(5)), ("b", numpy.arange(5) * 10)))


def test_transform_tuple_mode(ds):
    calls = []

    def f(a, b):
        calls.append((int(a), int(b)))
        return a + b, a * b

    out = ds.transform(("s", "p"), f)
    assert out.keys == ("s", "p")
    assert len(out) == 5
    assert out[2] == (22, 40)
    assert out.mode is tuple
    assert calls[-1] == (2, 20)


def test_transform_receives_dict_examples(ds):
    out = ds.asdict().transform("s", lambda a, b: a + b)
    assert out.mode is None
    assert out[1:3] == [11, 22]


def test_transform_of_unary_dataset():
    out = tabular.from_data([1, 2, 3]).transform("sq", lambda x: x * x)
    assert out.fetch() == [1, 4, 9]


def test_transform_returning_dict(ds):
    out = ds.transform(("x", "y"), lambda a, b: {"y": b, "x": a})
    assert out.mode is dict
    assert out[3] == {"x": 3, "y": 30}
    assert out.slice[:, "y"].fetch() == [0, 10, 20, 30, 40]


def test_transform_column_subset_and_convert(ds):
    out = ds.with_converter(lambda a, b: "parent").transform(("x",), lambda a, b: (a,))
    x = out.convert(out.fetch())
    assert isinstance(x[0], numpy.ndarray)
    assert x[0].tolist() == [0, 1, 2, 3, 4]


def test_transform_mode_of_empty_dataset():
    empty = tabular.from_data([])
    assert empty.transform("a", lambda x: x).mode is None
    assert empty.transform(("a", "b"), lambda x: (x, x)).mode is tuple


def test_transform_errors(ds):
    with pytest.raises(TypeError, match="keys must be a string or a tuple"):
        ds.transform(["x"], lambda a, b: a)
    with pytest.raises(ValueError, match="unique"):
        ds.transform(("x", "x"), lambda a, b: (a, b))
    with pytest.raises(TypeError, match="transform must be callable"):
        ds.transform("x", None)
    with pytest.raises(ValueError, match="returned 1 values"):
        ds.transform(("x", "y"), lambda a, b: (a,))[0]
    with pytest.raises(ValueError, match="single value for the keys"):
        ds.transform(("x", "y"), lambda a, b: a)[0]
    with pytest.raises(ValueError, match="no value for keys"):
        ds.transform(("x", "y"), lambda a, b: {"x": a})[0]
    flip = ds.transform("x", lambda a, b: a if a % 2 else (a,))
    with pytest.raises(ValueError, match="must not change its return type"):
        flip[0:2]


def test_transform_batch(ds):
    out = ds.transform_batch(("s",), lambda a, b: (a + b,))
    assert out.mode is tuple
    (s,) = out.fetch()
    assert s.tolist() == [0, 11, 22, 33, 44]
    assert out[3] == (33,)
    assert out[[4, 0]] == [(44,), (0,)]


def test_transform_batch_called_once_per_request(ds):
    calls = []

    def f(a, b):
        calls.append(len(a))
        return a - b

    out = ds.transform_batch("d", f)
    assert out.mode is None
    assert out[1:4] == [-9, -18, -27]
    assert calls[-1] == 3


def test_transform_batch_dict_in_and_out(ds):
    out = ds.asdict().transform_batch(("a", "b"), lambda a, b: {"a": b, "b": a})
    assert out.mode is dict
    assert out[1] == {"a": 10, "b": 1}


def test_transform_batch_errors(ds):
    with pytest.raises(TypeError, match="transform_batch must be callable"):
        ds.transform_batch("x", 3)
    bad = ds.transform_batch("x", lambda a, b: a[:1])
    with pytest.raises(ValueError, match="returned 1 rows"):
        bad.fetch()
