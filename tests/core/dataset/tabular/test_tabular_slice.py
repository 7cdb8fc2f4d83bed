import numpy
import pytest

from chainer.dataset import tabular


@pytest.fixture
def ds():
    return tabular.from_data(
        (
            ("a", numpy.arange(10)),
            ("b", [str(i) for i in range(10)]),
            ("c", -numpy.arange(10)),
        )
    )


def test_rows_only(ds):
    view = ds.slice[2:8:2]
    assert len(view) == 3
    assert view.keys == ("a", "b", "c")
    assert view.mode is tuple
    assert view[0] == (2, "2", -2)
    assert view[-1] == (6, "6", -6)


def test_rows_and_keys_by_name_and_position(ds):
    view = ds.slice[[3, 2], ("c", 0)]
    assert view.keys == ("c", "a")
    assert view[1] == (-2, 2)
    assert view.asdict()[0] == {"c": -3, "a": 3}


def test_single_key_gives_unary_view(ds):
    view = ds.slice[:, "b"]
    assert view.mode is None
    assert view[4] == "4"
    assert view.fetch() == [str(i) for i in range(10)]
    assert ds.slice[:, -1][1] == -1


def test_tuple_keys_on_unary_dataset_give_tuples():
    single = tabular.from_data(("a", [1, 2, 3]))
    assert single.slice[:, ("a",)][0] == (1,)


def test_boolean_mask_and_arrays(ds):
    mask = numpy.arange(10) % 3 == 0
    assert ds.slice[mask, "a"].fetch().tolist() == [0, 3, 6, 9]
    assert ds.slice[numpy.array([9, -10]), "a"].fetch().tolist() == [9, 0]
    assert ds.slice[[True, False] * 5, "a"].fetch().tolist() == [0, 2, 4, 6, 8]


def test_nested_slices_compose(ds):
    view = ds.slice[::-1].slice[1:8:3, ("a", "b")].slice[[2, 0], "b"]
    # ::-1 -> 9..0; [1:8:3] -> 8, 5, 2; [[2, 0]] -> 2, 8
    assert view[:] == ["2", "8"]
    reverse = ds.slice[::-1].slice[::-1]
    assert reverse.slice[:, "a"].fetch().tolist() == list(range(10))
    assert len(ds.slice[20:]) == 0
    assert ds.slice[20:][:] == []


def test_fetch_of_view_is_column_major(ds):
    a, c = ds.slice[1:3, ("a", "c")].fetch()
    assert a.tolist() == [1, 2]
    assert c.tolist() == [-1, -2]


def test_view_uses_parent_converter(ds):
    conv = ds.with_converter(lambda *cols: len(cols))
    view = conv.slice[:2, ("a", "b")]
    assert view.convert(view.fetch()) == 2


def test_slice_errors(ds):
    with pytest.raises(IndexError, match="out of range"):
        ds.slice[[10]]
    with pytest.raises(KeyError, match="'z'"):
        ds.slice[:, "z"]
    with pytest.raises(IndexError, match="key position 3"):
        ds.slice[:, 3]
    with pytest.raises(ValueError, match="same column more than once"):
        ds.slice[:, ("a", 0)]
    with pytest.raises(IndexError, match=r"rows or \(rows, keys\)"):
        ds.slice[1, 2, 3]
    with pytest.raises(TypeError, match="rows must be given by"):
        ds.slice[3]
    with pytest.raises(TypeError, match="by name or position"):
        ds.slice[:, 1.5]
