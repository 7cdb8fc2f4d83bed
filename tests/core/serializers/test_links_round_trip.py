import numpy
import pytest

import chainer
from chainer import serializers


class _Affine(chainer.Link):
    def __init__(self, n_in=None, n_out=3):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(shape=None if n_in is None else (n_out, n_in))
            self.b = chainer.Parameter(0.0, (n_out,))
        self.add_persistent("count", 0)
        self.add_persistent("stats", numpy.zeros(n_out, dtype=numpy.float32))


class _Net(chainer.Chain):
    def __init__(self, n_in=None):
        super().__init__()
        with self.init_scope():
            self.l1 = _Affine(n_in, 3)
            self.l2 = _Affine(3, 2)


def _trained():
    net = _Net(4)
    rng = numpy.random.default_rng(0)
    for _, param in net.namedparams():
        param.array[...] = rng.standard_normal(param.shape)
    net.l1.count = 5
    net.l2.stats[...] = [1.5, -2.0]
    return net


def _assert_same(a, b):
    params_a = dict(a.namedparams())
    params_b = dict(b.namedparams())
    assert sorted(params_a) == sorted(params_b)
    for name, param in params_a.items():
        numpy.testing.assert_array_equal(param.array, params_b[name].array)
    assert a.l1.count == b.l1.count
    numpy.testing.assert_array_equal(a.l2.stats, b.l2.stats)


def _save_load(kind, path, src, dst):
    if kind == "npz":
        serializers.save_npz(str(path), src)
        serializers.load_npz(str(path), dst)
    else:
        pytest.importorskip("h5py")
        serializers.save_hdf5(str(path), src)
        serializers.load_hdf5(str(path), dst)


@pytest.mark.parametrize("kind", ["npz", "hdf5"])
def test_chain_round_trip(tmp_path, kind):
    src = _trained()
    dst = _Net(4)
    _save_load(kind, tmp_path / f"net.{kind}", src, dst)
    _assert_same(src, dst)
    assert type(dst.l1.count) is int


@pytest.mark.parametrize("kind", ["npz", "hdf5"])
def test_lazy_parameters_take_stored_shape(tmp_path, kind):
    src = _trained()
    dst = _Net(None)
    assert dst.l1.W.array is None
    _save_load(kind, tmp_path / f"net.{kind}", src, dst)
    assert dst.l1.W.shape == (3, 4)
    _assert_same(src, dst)


def test_npz_keys_follow_link_hierarchy(tmp_path):
    path = tmp_path / "net.npz"
    serializers.save_npz(str(path), _trained())
    with numpy.load(path, allow_pickle=False) as f:
        assert sorted(f.files) == [
            "l1/W",
            "l1/b",
            "l1/count",
            "l1/stats",
            "l2/W",
            "l2/b",
            "l2/count",
            "l2/stats",
        ]


def test_load_part_of_snapshot_with_path(tmp_path):
    class Snapshot:
        def __init__(self, model):
            self.model = model

        def serialize(self, s):
            self.model.serialize(s["updater"]["model:main"])

    src = _trained()
    path = tmp_path / "snapshot"
    serializers.save_npz(str(path), Snapshot(src))
    dst = _Net(4)
    serializers.load_npz(str(path), dst, path="updater/model:main/")
    _assert_same(src, dst)


def test_mismatched_architecture(tmp_path):
    path = tmp_path / "net.npz"
    serializers.save_npz(str(path), _trained())
    with pytest.raises(ValueError, match=r"'l1/W'.*\(3, 4\).*\(3, 5\)"):
        serializers.load_npz(str(path), _Net(5))
