"""Loading is all-or-nothing, and HDF5 files never read other files.

Each failing load below must leave the model and the optimizer exactly as
they were (docs/guarantees.md).
"""

import io
import pickle
import tracemalloc
import zipfile

import numpy
import pytest

import chainer
from chainer import optimizers
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
    def __init__(self, n_in=4):
        super().__init__()
        with self.init_scope():
            self.l1 = _Affine(n_in, 3)
            self.l2 = _Affine(3, 2)


def _trained(seed=0):
    net = _Net()
    rng = numpy.random.default_rng(seed)
    for _, param in net.namedparams():
        param.array[...] = rng.standard_normal(param.shape)
    net.l1.count = 5
    net.l2.stats[...] = [1.5, -2.0]
    return net


def _with_state(net, seed=0):
    # An Adam optimizer whose state exists, filled with recognizable values.
    optimizer = optimizers.Adam().setup(net)
    rng = numpy.random.default_rng(seed)
    for param in net.params():
        param.grad = numpy.zeros_like(param.array)
    optimizer.update()
    for param in net.params():
        for value in param.update_rule.state.values():
            value[...] = rng.standard_normal(value.shape)
    optimizer.t = 9
    return optimizer


def _record(*objs):
    """Copies of everything the objects save, and which state is missing."""
    out = {}
    for i, obj in enumerate(objs):
        d = serializers.DictionarySerializer()
        d.save(obj)
        out.update({f"{i}/{k}": numpy.array(v, copy=True) for k, v in d.target.items()})
        if isinstance(obj, chainer.Link):
            for name, param in obj.namedparams():
                out[f"{i}/uninitialized{name}"] = numpy.array(param.array is None)
        else:
            for name, param in obj.target.namedparams():
                state = param.update_rule.state
                out[f"{i}/stateless{name}"] = numpy.array(state is None)
    return out


def _assert_unchanged(before, *objs):
    after = _record(*objs)
    assert sorted(after) == sorted(before)
    for key, value in before.items():
        numpy.testing.assert_array_equal(after[key], value, err_msg=key)


def _npy(arr):
    buf = io.BytesIO()
    numpy.lib.format.write_array(buf, arr, allow_pickle=True)
    return buf.getvalue()


def _rewrite(path, replace=None, drop=(), compression=zipfile.ZIP_DEFLATED):
    """Rewrites an NPZ archive with members replaced (raw .npy bytes) or dropped."""
    replace = replace or {}
    with zipfile.ZipFile(path) as zf:
        members = {info.filename: zf.read(info) for info in zf.infolist()}
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, data in members.items():
            if name not in drop:
                zf.writestr(name, replace.get(name, data))


def _flip_data(path, member):
    """Flips bytes inside a stored member's data so that its CRC-32 fails."""
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(member)
    data = bytearray(path.read_bytes())
    # A local header is 30 bytes, then the name and the extra field.
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    end = start + info.compress_size - 4
    data[end : end + 4] = bytes(b ^ 0xFF for b in data[end : end + 4])
    path.write_bytes(bytes(data))


def _saved(tmp_path, obj=None, name="net.npz", **kwargs):
    path = tmp_path / name
    serializers.save_npz(str(path), _trained(1) if obj is None else obj, **kwargs)
    return path


# -- NPZ: a failed load changes nothing -------------------------------------------


def test_bad_crc_in_a_later_member(tmp_path):
    path = _saved(tmp_path, compression=False)
    _flip_data(path, "l2/W.npy")
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'l2/W'.*net\.npz.*corrupted"):
        serializers.load_npz(str(path), net)
    _assert_unchanged(before, net)


def test_wrong_shape_in_a_later_member(tmp_path):
    path = _saved(tmp_path)
    _rewrite(path, {"l2/W.npy": _npy(numpy.zeros((3, 3), dtype="f"))})
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'l2/W'.*\(3, 3\).*\(2, 3\)"):
        serializers.load_npz(str(path), net)
    _assert_unchanged(before, net)


def test_missing_later_key(tmp_path):
    path = _saved(tmp_path)
    _rewrite(path, drop={"l2/stats.npy"})
    net = _trained()
    before = _record(net)
    with pytest.raises(KeyError, match=r"'l2/stats'.*net\.npz"):
        serializers.load_npz(str(path), net)
    _assert_unchanged(before, net)


def test_missing_key_is_skipped_when_not_strict(tmp_path):
    path = _saved(tmp_path)
    _rewrite(path, drop={"l2/stats.npy"})
    net = _trained()
    stats = net.l2.stats.copy()
    serializers.load_npz(str(path), net, strict=False)
    numpy.testing.assert_array_equal(net.l2.stats, stats)
    numpy.testing.assert_array_equal(net.l1.W.array, _trained(1).l1.W.array)


def test_pickled_later_member(tmp_path, monkeypatch):
    path = _saved(tmp_path)
    evil = numpy.array([{"a": 1}, None], dtype=object)
    _rewrite(path, {"l2/stats.npy": _npy(evil)})

    def forbidden(*args, **kwargs):
        raise AssertionError("unpickling attempted")

    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'l2/stats'.*net\.npz.*pickled"):
        serializers.load_npz(str(path), net)
    _assert_unchanged(before, net)


def test_chainer_none_into_an_array_parameter(tmp_path):
    # Chainer writes None as numpy.asarray(None), a pickled 0-d object array.
    path = _saved(tmp_path)
    _rewrite(path, {"l2/W.npy": _npy(numpy.asarray(None))})
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'l2/W'.*net\.npz.*None.*\(2, 3\)"):
        serializers.load_npz(str(path), net)
    _assert_unchanged(before, net)


def test_chainer_none_into_an_array_persistent(tmp_path):
    path = _saved(tmp_path)
    _rewrite(path, {"l2/stats.npy": _npy(numpy.asarray(None))})
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'l2/stats'.*None"):
        serializers.load_npz(str(path), net)
    _assert_unchanged(before, net)


def test_chainer_none_into_an_uninitialized_parameter_stays_none(tmp_path):
    net = _Net(n_in=None)
    path = tmp_path / "chainer.npz"
    source = _trained(1)
    arrays = {k: v for k, v in _record(source).items() if k.count("/") == 2}
    arrays = {k[2:]: v for k, v in arrays.items()}
    arrays["l1/W"] = numpy.asarray(None)
    numpy.savez(path, **arrays)
    serializers.load_npz(str(path), net)
    assert net.l1.W.array is None
    numpy.testing.assert_array_equal(net.l2.W.array, source.l2.W.array)


# -- NPZ: headers are checked before data is read -------------------------------


def _bomb(path, shape):
    """Writes an NPZ whose 'l1/W' is a large array of zeros, compressed."""
    header = io.BytesIO()
    numpy.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": shape}
    )
    nbytes = int(numpy.prod(shape)) * 4
    zero = bytes(1 << 20)
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf,
        zf.open("l1/W.npy", "w", force_zip64=True) as member,
    ):
        member.write(header.getvalue())
        for _ in range(nbytes // len(zero)):
            member.write(zero)


def test_zip_bomb_is_refused_before_decompressing(tmp_path):
    path = tmp_path / "bomb.npz"
    _bomb(path, (4096, 4096))  # 64 MiB of zeros in about 64 KiB
    assert path.stat().st_size < 1 << 20
    net = _trained()
    before = _record(net)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"'l1/W'.*bomb\.npz.*\(4096, 4096\)"):
            serializers.load_npz(str(path), net)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20
    _assert_unchanged(before, net)


def test_header_claiming_a_terabyte_is_named(tmp_path):
    # An uninitialized parameter takes any shape, so only the header's
    # consistency with the member stops a 1 TiB allocation.
    path = tmp_path / "huge.npz"
    header = io.BytesIO()
    numpy.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (1 << 38,)}
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("W.npy", header.getvalue() + bytes(24))
    param = chainer.Parameter()

    class _One:
        def serialize(self, serializer):
            serializer("W", param)

    with pytest.raises(ValueError, match=r"'W'.*huge\.npz.*1099511627776 bytes"):
        serializers.load_npz(str(path), _One())
    assert param.array is None


def test_array_too_large_for_memory_is_named(tmp_path, monkeypatch):
    path = tmp_path / "big.npz"
    serializers.save_npz(str(path), {"W": numpy.zeros((64, 64), dtype="f")})
    empty = numpy.empty

    def tight_empty(shape, *args, **kwargs):
        if numpy.prod(shape) >= 64 * 64:
            raise MemoryError("no memory left (simulated)")
        return empty(shape, *args, **kwargs)

    monkeypatch.setattr(numpy, "empty", tight_empty)
    param = chainer.Parameter()

    class _One:
        def serialize(self, serializer):
            serializer("W", param)

    with pytest.raises(MemoryError, match=r"'W'.*big\.npz.*\(64, 64\).*16384 bytes"):
        serializers.load_npz(str(path), _One())
    assert param.array is None


# -- optimizer state ---------------------------------------------------------------


def _snapshot_of(tmp_path, optimizer, name="opt.npz", **kwargs):
    path = tmp_path / name
    serializers.save_npz(str(path), optimizer, **kwargs)
    return path


def test_optimizer_state_is_unchanged_by_a_failed_load(tmp_path):
    source = _trained(1)
    path = _snapshot_of(tmp_path, _with_state(source, 1), compression=False)
    _flip_data(path, "l2/b/v.npy")
    net = _trained()
    optimizer = _with_state(net)
    before = _record(net, optimizer)
    with pytest.raises(ValueError, match=r"'l2/b/v'.*corrupted"):
        serializers.load_npz(str(path), optimizer)
    _assert_unchanged(before, net, optimizer)


def test_lazily_created_state_is_not_created_by_a_failed_load(tmp_path):
    source = _trained(1)
    path = _snapshot_of(tmp_path, _with_state(source, 1), compression=False)
    _flip_data(path, "l2/b/v.npy")
    net = _trained()
    optimizer = optimizers.Adam().setup(net)
    assert all(param.update_rule.state is None for param in net.params())
    before = _record(net, optimizer)
    with pytest.raises(ValueError, match=r"'l2/b/v'.*corrupted"):
        serializers.load_npz(str(path), optimizer)
    _assert_unchanged(before, net, optimizer)


def test_lazily_created_state_is_loaded(tmp_path):
    source = _trained(1)
    source_optimizer = _with_state(source, 1)
    path = _snapshot_of(tmp_path, source_optimizer)
    net = _trained()
    optimizer = optimizers.Adam().setup(net)
    serializers.load_npz(str(path), optimizer)
    assert optimizer.t == 9
    for name, param in net.namedparams():
        loaded = param.update_rule.state
        expected = dict(source.namedparams())[name].update_rule.state
        assert sorted(loaded) == sorted(expected)
        for key, value in expected.items():
            numpy.testing.assert_array_equal(loaded[key], value)


def test_lazily_created_state_of_the_wrong_shape_is_refused(tmp_path):
    # The stored state belongs to a model whose first layer takes 5 inputs;
    # the optimizer loading it has no state yet, so only the parameter can
    # tell the shape the state must have.
    source = _Net(n_in=5)
    path = _snapshot_of(tmp_path, _with_state(source, 1))
    net = _trained()
    optimizer = optimizers.Adam().setup(net)
    before = _record(net, optimizer)
    with pytest.raises(ValueError, match=r"state 'm' of shape \(3, 5\).*\(3, 4\)"):
        serializers.load_npz(str(path), optimizer)
    _assert_unchanged(before, net, optimizer)


def test_uninitialized_parameter_stays_so_after_a_failed_load(tmp_path):
    path = _saved(tmp_path)
    _rewrite(path, {"l2/W.npy": _npy(numpy.zeros((3, 3), dtype="f"))})
    net = _Net(n_in=None)
    optimizer = optimizers.Adam().setup(net)
    before = _record(net, optimizer)
    with pytest.raises(ValueError, match=r"'l2/W'"):
        serializers.load_npz(str(path), net)
    assert net.l1.W.array is None
    assert net.l1.W.grad is None
    _assert_unchanged(before, net, optimizer)


def test_uninitialized_parameter_takes_the_stored_shape(tmp_path):
    source = _trained(1)
    path = _saved(tmp_path, source)
    net = _Net(n_in=None)
    serializers.load_npz(str(path), net)
    assert net.l1.W.shape == (3, 4)
    numpy.testing.assert_array_equal(net.l1.W.array, source.l1.W.array)


def test_path_and_ignore_names_still_apply(tmp_path):
    source = _trained(1)
    path = tmp_path / "outer.npz"
    serializers.save_npz(str(path), {"model/" + k: v for k, v in _arrays(source)})
    net = _trained()
    w2 = net.l2.W.array.copy()
    serializers.load_npz(str(path), net, path="model/", ignore_names="model/l2/W")
    numpy.testing.assert_array_equal(net.l1.W.array, source.l1.W.array)
    numpy.testing.assert_array_equal(net.l2.W.array, w2)


def _arrays(obj):
    d = serializers.DictionarySerializer()
    d.save(obj)
    return d.target.items()


# -- HDF5 -------------------------------------------------------------------------


def _h5py():
    return pytest.importorskip("h5py")


def _saved_h5(tmp_path, name="net.h5"):
    path = tmp_path / name
    serializers.save_hdf5(str(path), _trained(1))
    return path


def test_hdf5_wrong_shape_in_a_later_dataset(tmp_path):
    h5py = _h5py()
    path = _saved_h5(tmp_path)
    with h5py.File(path, "r+") as f:
        del f["l2/W"]
        f["l2/W"] = numpy.zeros((3, 3), dtype="f")
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'/l2/W'.*net\.h5.*\(3, 3\)"):
        serializers.load_hdf5(str(path), net)
    _assert_unchanged(before, net)


def test_hdf5_missing_later_dataset(tmp_path):
    h5py = _h5py()
    path = _saved_h5(tmp_path)
    with h5py.File(path, "r+") as f:
        del f["l2/stats"]
    net = _trained()
    before = _record(net)
    with pytest.raises(KeyError, match=r"'/l2/stats'"):
        serializers.load_hdf5(str(path), net)
    _assert_unchanged(before, net)


def test_hdf5_none_into_an_array(tmp_path):
    h5py = _h5py()
    path = _saved_h5(tmp_path)
    with h5py.File(path, "r+") as f:
        del f["l2/W"]
        f.create_dataset("l2/W", data=h5py.Empty("f"))
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'/l2/W'.*None"):
        serializers.load_hdf5(str(path), net)
    _assert_unchanged(before, net)


def _secret(tmp_path):
    # Stands for any local file, such as /etc/hostname.
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"top-secret-host\n")
    return secret


def test_hdf5_external_storage_is_refused(tmp_path):
    h5py = _h5py()
    secret = _secret(tmp_path)
    path = _saved_h5(tmp_path)
    with h5py.File(path, "r+") as f:
        del f["l2/W"]
        f.create_dataset(
            "l2/W", shape=(2, 3), dtype="u1", external=[(str(secret), 0, 6)]
        )
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'/l2/W'.*net\.h5.*external files"):
        serializers.load_hdf5(str(path), net)
    _assert_unchanged(before, net)


def test_hdf5_external_link_is_refused(tmp_path):
    h5py = _h5py()
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["W"] = numpy.full((2, 3), 7, dtype="f")
    path = _saved_h5(tmp_path)
    with h5py.File(path, "r+") as f:
        del f["l2/W"]
        f["l2/W"] = h5py.ExternalLink(str(other), "/W")
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'/l2/W'.*external link.*other\.h5"):
        serializers.load_hdf5(str(path), net)
    _assert_unchanged(before, net)


def test_hdf5_external_link_to_a_group_is_refused(tmp_path):
    h5py = _h5py()
    other = tmp_path / "other.h5"
    serializers.save_hdf5(str(other), _trained(1).l2)
    path = _saved_h5(tmp_path)
    with h5py.File(path, "r+") as f:
        del f["l2"]
        f["l2"] = h5py.ExternalLink(str(other), "/")
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'/l2'.*external link"):
        serializers.load_hdf5(str(path), net)
    _assert_unchanged(before, net)


def test_hdf5_soft_link_is_refused(tmp_path):
    h5py = _h5py()
    path = _saved_h5(tmp_path)
    with h5py.File(path, "r+") as f:
        del f["l2/b"]
        f["l2/b"] = h5py.SoftLink("/l1/stats")
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'/l2/b'.*soft link"):
        serializers.load_hdf5(str(path), net)
    _assert_unchanged(before, net)


def test_hdf5_virtual_dataset_is_refused(tmp_path):
    h5py = _h5py()
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["W"] = numpy.full((2, 3), 7, dtype="f")
    path = _saved_h5(tmp_path)
    layout = h5py.VirtualLayout(shape=(2, 3), dtype="f")
    layout[...] = h5py.VirtualSource(str(other), "W", shape=(2, 3))
    with h5py.File(path, "r+") as f:
        del f["l2/W"]
        f.create_virtual_dataset("l2/W", layout)
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'/l2/W'.*virtual dataset"):
        serializers.load_hdf5(str(path), net)
    _assert_unchanged(before, net)


def test_hdf5_non_numeric_dtype_is_refused(tmp_path):
    h5py = _h5py()
    path = _saved_h5(tmp_path)
    record = numpy.zeros(2, dtype=[("a", "f4"), ("b", "i4")])
    with h5py.File(path, "r+") as f:
        del f["l2/b"]
        f["l2/b"] = record
    net = _trained()
    before = _record(net)
    with pytest.raises(ValueError, match=r"'/l2/b'.*neither a number nor a string"):
        serializers.load_hdf5(str(path), net)
    _assert_unchanged(before, net)


def test_hdf5_optimizer_state_unchanged_by_a_failed_load(tmp_path):
    h5py = _h5py()
    source = _trained(1)
    path = tmp_path / "opt.h5"
    serializers.save_hdf5(str(path), _with_state(source, 1))
    with h5py.File(path, "r+") as f:
        del f["l2/b/v"]
        f["l2/b/v"] = numpy.zeros(2, dtype=[("a", "f4"), ("b", "i4")])
    net = _trained()
    optimizer = optimizers.Adam().setup(net)
    before = _record(net, optimizer)
    with pytest.raises(ValueError, match=r"'/l2/b/v'.*neither a number"):
        serializers.load_hdf5(str(path), optimizer)
    _assert_unchanged(before, net, optimizer)


def test_hdf5_external_link_inside_a_nested_path_is_refused(tmp_path):
    # An optimizer asks for 'l2/W' at once: every link on the way is checked.
    h5py = _h5py()
    source = _trained(1)
    other = tmp_path / "other.h5"
    serializers.save_hdf5(str(other), _with_state(source, 1))
    path = tmp_path / "opt.h5"
    serializers.save_hdf5(str(path), _with_state(_trained(2), 2))
    with h5py.File(path, "r+") as f:
        del f["l2"]
        f["l2"] = h5py.ExternalLink(str(other), "/l2")
    net = _trained()
    optimizer = _with_state(net)
    before = _record(net, optimizer)
    with pytest.raises(ValueError, match=r"'/l2'.*external link.*other\.h5"):
        serializers.load_hdf5(str(path), optimizer)
    _assert_unchanged(before, net, optimizer)
