import os
import subprocess
import sys

import numpy
import pytest

import chainer
from chainer import serializers

h5py = pytest.importorskip("h5py")


class _Obj:
    def __init__(self):
        self.W = numpy.zeros((2, 3), dtype=numpy.float32)
        self.n = 0
        self.lr = 0.0
        self.label = ""
        self.opt = None
        self.b = numpy.zeros(3, dtype=numpy.float32)

    def fill(self):
        self.W[...] = numpy.arange(6).reshape(2, 3)
        self.n = 7
        self.lr = 0.25
        self.label = "hello"
        self.b[...] = [1, 2, 3]
        return self

    def serialize(self, serializer):
        serializer("W", self.W)
        self.n = serializer("n", self.n)
        self.lr = serializer("lr", self.lr)
        self.label = serializer("label", self.label)
        self.opt = serializer("opt", self.opt)
        serializer["child"]("b", self.b)


class _One:
    def __init__(self, value, key="v"):
        self.value = value
        self.key = key

    def serialize(self, serializer):
        self.value = serializer(self.key, self.value)


def _save(tmp_path, obj, **kwargs):
    path = tmp_path / "obj.h5"
    serializers.save_hdf5(str(path), obj, **kwargs)
    return path


def test_round_trip(tmp_path):
    path = _save(tmp_path, _Obj().fill())
    obj = _Obj()
    w = obj.W
    serializers.load_hdf5(str(path), obj)
    assert obj.W is w
    numpy.testing.assert_array_equal(obj.W, numpy.arange(6).reshape(2, 3))
    assert obj.n == 7
    assert type(obj.n) is int
    assert obj.lr == 0.25
    assert obj.label == "hello"
    assert type(obj.label) is str
    assert obj.opt is None
    numpy.testing.assert_array_equal(obj.b, [1, 2, 3])


def test_layout_and_compression(tmp_path):
    path = _save(tmp_path, _Obj().fill(), compression=9)
    with h5py.File(path, "r") as f:
        assert f["child/b"].compression == "gzip"
        assert f["child/b"].compression_opts == 9
        assert f["n"].compression is None  # scalars cannot be chunked
        assert f["opt"].shape is None  # None is an empty dataset


def test_variable_and_parameter(tmp_path):
    path = _save(tmp_path, _One(chainer.Variable(numpy.arange(4, dtype="f"))))
    param = chainer.Parameter()
    serializers.load_hdf5(str(path), _One(param))
    numpy.testing.assert_array_equal(param.array, [0, 1, 2, 3])


def test_value_none_returns_array(tmp_path):
    path = _save(tmp_path, _One(numpy.arange(3)))
    one = _One(None)
    serializers.load_hdf5(str(path), one)
    numpy.testing.assert_array_equal(one.value, [0, 1, 2])


def test_string_array_round_trip(tmp_path):
    path = _save(tmp_path, _One(numpy.array(["ab", "c"])))
    one = _One(None)
    serializers.load_hdf5(str(path), one)
    assert list(one.value) == ["ab", "c"]


def test_serializer_and_deserializer_on_groups(tmp_path):
    path = tmp_path / "g.h5"
    with h5py.File(path, "w") as f:
        s = serializers.HDF5Serializer(f.create_group("model"))
        s["sub"]("x", numpy.arange(3))
    with h5py.File(path, "r") as f:
        d = serializers.HDF5Deserializer(f["model"])
        target = numpy.zeros(3, dtype=numpy.int64)
        d["sub"]("x", target)
        numpy.testing.assert_array_equal(target, [0, 1, 2])
        with pytest.raises(KeyError, match=r"'/model/sub/y'.*g.h5"):
            d["sub"]("y", 0)
        with pytest.raises(KeyError, match="'/model/none/x'"):
            d["none"]("x", 0)
        lax = serializers.HDF5Deserializer(f["model"], strict=False)
        assert lax["none"]("x", 5) == 5


def test_missing_key(tmp_path):
    path = _save(tmp_path, _One(1, key="a"))
    with pytest.raises(KeyError, match="'/b'"):
        serializers.load_hdf5(str(path), _One(2, key="b"))


def test_shape_mismatch(tmp_path):
    path = _save(tmp_path, _One(numpy.zeros((2, 3))))
    with pytest.raises(ValueError, match=r"'/v'.*\(2, 3\).*\(3, 2\)"):
        serializers.load_hdf5(str(path), _One(numpy.zeros((3, 2))))


def test_not_an_hdf5_file(tmp_path):
    path = tmp_path / "junk.h5"
    path.write_bytes(b"junk" * 100)
    with pytest.raises(ValueError, match=r"junk.h5"):
        serializers.load_hdf5(str(path), _Obj())


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        serializers.load_hdf5(str(tmp_path / "nope.h5"), _Obj())


def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match=r"h5py\.Group"):
        serializers.HDF5Serializer({})
    with pytest.raises(TypeError, match=r"h5py\.Group"):
        serializers.HDF5Deserializer([])
    with (
        h5py.File(tmp_path / "a.h5", "w") as f,
        pytest.raises(ValueError, match="gzip level"),
    ):
        serializers.HDF5Serializer(f, compression=11)
    with pytest.raises(TypeError, match="path"):
        serializers.save_hdf5(3, _Obj())


def test_failed_save_leaves_old_file(tmp_path):
    path = _save(tmp_path, _Obj().fill())
    before = path.read_bytes()

    class Broken:
        def serialize(self, serializer):
            serializer("a", numpy.ones(2))
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        serializers.save_hdf5(str(path), Broken())
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["obj.h5"]


def test_without_h5py(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(RuntimeError, match=r"pip install 'chainer-core\[hdf5\]'"):
        serializers.save_hdf5(str(tmp_path / "x.h5"), _Obj())
    with pytest.raises(RuntimeError, match="h5py"):
        serializers.load_hdf5(str(tmp_path / "x.h5"), _Obj())
    with pytest.raises(RuntimeError, match="h5py"):
        serializers.HDF5Serializer(None)
    assert not (tmp_path / "x.h5").exists()


def test_import_without_h5py():
    # chainer.serializers must neither need nor import h5py until it is used.
    code = (
        "import sys\n"
        "import chainer.serializers as s\n"
        "assert 'h5py' not in sys.modules\n"
        "sys.modules['h5py'] = None\n"
        "try:\n"
        "    s.save_hdf5('unused.h5', object())\n"
        "except RuntimeError as e:\n"
        "    print('OK', e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("OK")
