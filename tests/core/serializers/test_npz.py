import io
import os
import pickle
import stat
import threading
import zipfile

import numpy
import pytest

import chainer
from chainer import serializers
from chainer.serializers import npz


class _Child:
    def __init__(self):
        self.b = numpy.zeros(3, dtype=numpy.float32)
        self.count = 0

    def serialize(self, serializer):
        serializer("b", self.b)
        self.count = serializer("count", self.count)


class _Obj:
    def __init__(self):
        self.W = numpy.zeros((2, 3), dtype=numpy.float32)
        self.n = 0
        self.lr = 0.0
        self.flag = False
        self.label = ""
        self.opt = None
        self.child = _Child()

    def fill(self):
        self.W[...] = numpy.arange(6).reshape(2, 3)
        self.n = 7
        self.lr = 0.25
        self.flag = True
        self.label = "hello"
        self.child.b[...] = [1, 2, 3]
        self.child.count = 11
        return self

    def serialize(self, serializer):
        serializer("W", self.W)
        self.n = serializer("n", self.n)
        self.lr = serializer("lr", self.lr)
        self.flag = serializer("flag", self.flag)
        self.label = serializer("label", self.label)
        self.opt = serializer("opt", self.opt)
        self.child.serialize(serializer["child"])


def _assert_filled(obj):
    numpy.testing.assert_array_equal(obj.W, numpy.arange(6).reshape(2, 3))
    assert obj.n == 7
    assert type(obj.n) is int
    assert obj.lr == 0.25
    assert type(obj.lr) is float
    assert obj.flag is True
    assert obj.label == "hello"
    assert type(obj.label) is str
    assert obj.opt is None
    numpy.testing.assert_array_equal(obj.child.b, [1, 2, 3])
    assert obj.child.count == 11


class _One:
    def __init__(self, value, key="v"):
        self.value = value
        self.key = key

    def serialize(self, serializer):
        self.value = serializer(self.key, self.value)


def _save(tmp_path, obj, name="obj.npz", **kwargs):
    path = tmp_path / name
    serializers.save_npz(str(path), obj, **kwargs)
    return path


# -- DictionarySerializer ------------------------------------------------------


def test_dictionary_serializer_paths():
    s = serializers.DictionarySerializer()
    s.save(_Obj().fill())
    assert set(s.target) == {
        "W",
        "n",
        "lr",
        "flag",
        "label",
        "opt",
        "child/b",
        "child/count",
    }
    numpy.testing.assert_array_equal(s.target["child/b"], [1, 2, 3])
    assert s["/a/"]["b"].path == "a/b/"


def test_dictionary_serializer_returns_value_and_unwraps_variable():
    s = serializers.DictionarySerializer()
    v = chainer.Variable(numpy.ones(2, dtype=numpy.float32))
    assert s("/x", v) is v
    numpy.testing.assert_array_equal(s.target["x"], [1, 1])
    assert isinstance(s.target["x"], numpy.ndarray)


def test_dictionary_serializer_bad_target():
    with pytest.raises(TypeError, match="dict-like"):
        serializers.DictionarySerializer(target=3)


def test_dictionary_serializer_rejects_objects_needing_pickle():
    s = serializers.DictionarySerializer()
    with pytest.raises(TypeError, match=r"'bad'.*pickling"):
        s("bad", {1, 2})


# -- save_npz / load_npz round trips ---------------------------------------------


@pytest.mark.parametrize("compression", [True, False])
def test_round_trip_path(tmp_path, compression):
    path = _save(tmp_path, _Obj().fill(), compression=compression)
    with zipfile.ZipFile(path) as zf:
        kinds = {info.compress_type for info in zf.infolist()}
        names = set(zf.namelist())
    expected = zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED
    assert kinds == {expected}
    assert "child/b.npy" in names
    obj = _Obj()
    w = obj.W
    serializers.load_npz(str(path), obj)
    _assert_filled(obj)
    assert obj.W is w  # loaded in place


def test_archive_is_plain_numpy_without_pickle(tmp_path):
    path = _save(tmp_path, _Obj().fill())
    with numpy.load(path, allow_pickle=False) as f:
        for key in f.files:
            f[key]  # every member loads without pickling
        numpy.testing.assert_array_equal(f["W"], numpy.arange(6).reshape(2, 3))
        assert f["label"][()] == "hello"


def test_round_trip_pathlib_and_file_object(tmp_path):
    path = tmp_path / "p.npz"
    serializers.save_npz(path, _Obj().fill())
    obj = _Obj()
    serializers.load_npz(path, obj)
    _assert_filled(obj)

    buf = io.BytesIO()
    serializers.save_npz(buf, _Obj().fill())
    buf.seek(0)
    obj = _Obj()
    serializers.load_npz(buf, obj)
    _assert_filled(obj)


def test_save_does_not_append_extension(tmp_path):
    path = tmp_path / "my.model"
    serializers.save_npz(str(path), _Obj().fill())
    assert path.exists()
    assert not (tmp_path / "my.model.npz").exists()


def test_load_with_path_prefix(tmp_path):
    path = _save(tmp_path, _Obj().fill())
    child = _Child()
    serializers.load_npz(str(path), child, path="child/")
    numpy.testing.assert_array_equal(child.b, [1, 2, 3])
    assert child.count == 11


def test_none_into_array_is_an_error(tmp_path):
    path = _save(tmp_path, _One(None))
    one = _One(numpy.zeros(2))
    with pytest.raises(ValueError, match=r"'v'.*holds None.*shape \(2,\)"):
        serializers.load_npz(str(path), one)
    numpy.testing.assert_array_equal(one.value, numpy.zeros(2))


def test_none_into_none_stays_none(tmp_path):
    path = _save(tmp_path, _One(None))
    one = _One(None)
    serializers.load_npz(str(path), one)
    assert one.value is None


def test_value_none_returns_stored_array(tmp_path):
    path = _save(tmp_path, _One(numpy.arange(4)))
    one = _One(None)
    serializers.load_npz(str(path), one)
    numpy.testing.assert_array_equal(one.value, numpy.arange(4))


def test_chainer_style_pickled_none_is_read_without_unpickling(tmp_path, monkeypatch):
    path = tmp_path / "chainer.npz"
    # Real Chainer stores None as numpy.asarray(None), a pickled object array.
    numpy.savez(path, v=numpy.asarray(None), w=numpy.arange(3))

    def forbidden(*args, **kwargs):
        raise AssertionError("unpickling attempted")

    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    one = _One(None)
    serializers.load_npz(str(path), one)
    assert one.value is None


def test_pickled_objects_are_never_loaded(tmp_path, monkeypatch):
    path = tmp_path / "evil.npz"
    numpy.savez(path, v=numpy.array([{"a": 1}, None], dtype=object))

    def forbidden(*args, **kwargs):
        raise AssertionError("unpickling attempted")

    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    with pytest.raises(ValueError, match=r"'v'.*evil.npz"):
        serializers.load_npz(str(path), _One(None))


# -- scalars and dtypes -----------------------------------------------------------


@pytest.mark.parametrize(
    ("saved", "target", "expected"),
    [
        (numpy.int64(5), 0, 5),
        (3, 0.0, 3.0),
        (numpy.float32(1.5), 0.0, 1.5),
        (True, False, True),
        ("text", "", "text"),
        (numpy.float32(2.5), numpy.float64(0), 2.5),
    ],
)
def test_scalar_conversion(tmp_path, saved, target, expected):
    path = _save(tmp_path, _One(saved))
    one = _One(target)
    serializers.load_npz(str(path), one)
    assert one.value == expected
    assert type(one.value) is type(target)


def test_unsafe_scalar_conversion_is_rejected(tmp_path):
    path = _save(tmp_path, _One(1.5))
    with pytest.raises(TypeError, match=r"'v'.*float64.*int"):
        serializers.load_npz(str(path), _One(0))


def test_array_into_scalar_is_rejected(tmp_path):
    path = _save(tmp_path, _One(numpy.arange(3)))
    with pytest.raises(ValueError, match=r"'v'.*shape \(3,\)"):
        serializers.load_npz(str(path), _One(0))


def test_dtype_is_converted_in_place(tmp_path):
    path = _save(tmp_path, _One(numpy.arange(3, dtype=numpy.float64)))
    target = numpy.zeros(3, dtype=numpy.float32)
    serializers.load_npz(str(path), _One(target))
    assert target.dtype == numpy.float32
    numpy.testing.assert_array_equal(target, [0, 1, 2])


# -- Variables and Parameters ---------------------------------------------------------


def test_variable_is_filled_in_place(tmp_path):
    path = _save(tmp_path, _One(chainer.Variable(numpy.arange(3, dtype="f"))))
    var = chainer.Variable(numpy.zeros(3, dtype="f"))
    arr = var.array
    one = _One(var)
    serializers.load_npz(str(path), one)
    assert one.value is var
    assert var.array is arr
    numpy.testing.assert_array_equal(arr, [0, 1, 2])


def test_uninitialized_parameter_takes_stored_shape(tmp_path):
    path = _save(tmp_path, _One(numpy.arange(6, dtype="f").reshape(2, 3)))
    param = chainer.Parameter()
    assert param.array is None
    serializers.load_npz(str(path), _One(param))
    assert param.shape == (2, 3)
    numpy.testing.assert_array_equal(param.array, numpy.arange(6).reshape(2, 3))


# -- strictness and ignore_names -------------------------------------------------------


def test_missing_key_strict(tmp_path):
    path = _save(tmp_path, _One(1, key="a"))
    with pytest.raises(KeyError, match=r"'b'.*obj\.npz"):
        serializers.load_npz(str(path), _One(2, key="b"))


def test_missing_key_not_strict(tmp_path):
    path = _save(tmp_path, _One(1, key="a"))
    one = _One(2, key="b")
    serializers.load_npz(str(path), one, strict=False)
    assert one.value == 2


@pytest.mark.parametrize(
    "ignore", ["child/count", lambda key: key.endswith("count"), ["x", "child/count"]]
)
def test_ignore_names(tmp_path, ignore):
    path = _save(tmp_path, _Obj().fill())
    obj = _Obj()
    obj.child.count = -1
    serializers.load_npz(str(path), obj, ignore_names=ignore)
    assert obj.child.count == -1
    assert obj.n == 7


def test_bad_ignore_names():
    with pytest.raises(ValueError, match="ignore_names"):
        serializers.NpzDeserializer({}, ignore_names=[3])


def test_npz_deserializer_on_dict():
    d = serializers.NpzDeserializer({"a/x": numpy.arange(2)})
    target = numpy.zeros(2, dtype=numpy.int64)
    assert d["a"]("x", target) is target
    numpy.testing.assert_array_equal(target, [0, 1])
    with pytest.raises(KeyError, match="'a/y'"):
        d["a"]("y", 0)


def test_npz_deserializer_bad_npz():
    with pytest.raises(TypeError, match="NpzFile"):
        serializers.NpzDeserializer(3)


# -- errors ---------------------------------------------------------------------------


def test_shape_mismatch(tmp_path):
    path = _save(tmp_path, _Obj().fill())
    obj = _Obj()
    obj.W = numpy.zeros((3, 2), dtype=numpy.float32)
    with pytest.raises(ValueError, match=r"'W'.*\(2, 3\).*\(3, 2\)"):
        serializers.load_npz(str(path), obj)


def test_broadcastable_shape_is_still_a_mismatch(tmp_path):
    path = _save(tmp_path, _One(numpy.ones(1)))
    with pytest.raises(ValueError, match="shape mismatch"):
        serializers.load_npz(str(path), _One(numpy.zeros(3)))


def test_not_an_npz_file(tmp_path):
    path = tmp_path / "junk.npz"
    path.write_bytes(b"this is not a zip archive at all" * 10)
    with pytest.raises(ValueError, match=r"junk.npz"):
        serializers.load_npz(str(path), _Obj())


def test_truncated_file(tmp_path):
    path = _save(tmp_path, _Obj().fill())
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"obj.npz"):
        serializers.load_npz(str(path), _Obj())


def test_corrupted_member(tmp_path):
    path = _save(tmp_path, _One(numpy.arange(1000.0)), compression=False)
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 8] = b"\xff" * 8
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"'v'.*obj.npz"):
        serializers.load_npz(str(path), _One(numpy.zeros(1000)))


def test_single_npy_is_rejected(tmp_path):
    path = tmp_path / "a.npy"
    numpy.save(path, numpy.arange(3))
    with pytest.raises(ValueError, match=r"a.npy.*not an NPZ"):
        serializers.load_npz(str(path), _Obj())


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        serializers.load_npz(str(tmp_path / "nope.npz"), _Obj())


def test_object_without_serialize(tmp_path):
    with pytest.raises(TypeError, match="serialize"):
        serializers.save_npz(str(tmp_path / "x.npz"), object())


def test_bad_file_argument():
    with pytest.raises(TypeError, match="file"):
        serializers.save_npz(3, _Obj())


# -- atomic writes --------------------------------------------------------------------


def test_failed_serialize_leaves_old_file(tmp_path):
    path = _save(tmp_path, _Obj().fill())
    before = path.read_bytes()

    class Broken:
        def serialize(self, serializer):
            serializer("a", numpy.ones(2))
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        serializers.save_npz(str(path), Broken())
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["obj.npz"]


def test_crash_while_writing_leaves_old_file(tmp_path, monkeypatch):
    path = _save(tmp_path, _Obj().fill())
    before = path.read_bytes()
    calls = []
    real = numpy.lib.format.write_array

    def failing(fp, array, *args, **kwargs):
        calls.append(1)
        if len(calls) > 2:
            raise OSError("disk full")
        return real(fp, array, *args, **kwargs)

    monkeypatch.setattr(numpy.lib.format, "write_array", failing)
    with pytest.raises(OSError, match="disk full"):
        serializers.save_npz(str(path), _Obj().fill())
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["obj.npz"]


def test_new_file_gets_umask_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        path = _save(tmp_path, _Obj().fill())
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_source_name_helper_for_dict():
    d = npz.NpzDeserializer({})
    with pytest.raises(KeyError, match="dictionary"):
        d("x", 1)


def test_save_into_missing_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        serializers.save_npz(str(tmp_path / "no" / "x.npz"), _Obj())


def test_save_npz_saves_a_dict_as_it_is(tmp_path):
    path = tmp_path / "d.npz"
    serializers.save_npz(
        str(path), {"a/W": numpy.arange(3, dtype=numpy.float32), "t": 5, "n": None}
    )
    with numpy.load(str(path)) as f:
        numpy.testing.assert_array_equal(f["a/W"], numpy.arange(3))
        assert int(f["t"]) == 5
        assert sorted(f.files) == ["a/W", "n", "t"]


def test_save_to_a_fifo_streams_the_archive(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []

    def read():
        with open(fifo, "rb") as f:
            received.append(f.read())

    reader = threading.Thread(target=read)
    reader.start()
    try:
        serializers.save_npz(str(fifo), {"a": numpy.arange(6.0).reshape(2, 3)})
    finally:
        reader.join(10)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with numpy.load(io.BytesIO(received[0])) as archive:
        numpy.testing.assert_array_equal(archive["a"], numpy.arange(6.0).reshape(2, 3))


def test_save_to_dev_null_keeps_the_device():
    serializers.save_npz("/dev/null", {"a": numpy.zeros(3)}, compression=False)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
