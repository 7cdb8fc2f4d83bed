"""get_cifar10 / get_cifar100 against small archives in the real format.

The archives are tar.gz files holding pickled batches laid out as the
publisher's: ``cifar-10-batches-py/data_batch_1`` ... ``test_batch`` and
``cifar-100-python/train``, ``test``, each a dict with byte-string keys whose
``data`` is a uint8 array of shape (N, 3072). The real batches were written
by Python 2's cPickle (protocol 2); :func:`py2_pickle` writes the same
opcodes.
"""

import hashlib
import io
import itertools
import math
import os
import pickle
import struct
import subprocess
import sys
import tarfile
import textwrap

import numpy
import pytest

import chainer
from chainer.datasets import _retrieval
from chainer.datasets import cifar

CIFAR10_MEMBERS = [f"data_batch_{i}" for i in range(1, 6)]


# ----------------------------------------------------------- real formats


def _py2_str(data):
    # A Python 2 ``str`` as cPickle protocol 2 writes it.
    if len(data) < 256:
        return b"U" + bytes([len(data)]) + data
    return b"T" + struct.pack("<i", len(data)) + data


def _py2_int(value):
    if 0 <= value < 256:
        return b"K" + bytes([value])
    return b"J" + struct.pack("<i", value)


def _py2_uint8_array(array):
    # numpy's ndarray.__reduce__ under Python 2: _reconstruct, then the
    # state (version, shape, dtype, fortran order, raw bytes).
    out = b"cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\n"
    out += b"K\x00\x85" + _py2_str(b"b") + b"\x87R"
    out += b"(K\x01(" + b"".join(_py2_int(d) for d in array.shape) + b"t"
    out += b"cnumpy\ndtype\n" + _py2_str(b"u1") + b"K\x00K\x01\x87R"
    out += b"(K\x03" + _py2_str(b"|") + b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb"
    out += b"\x89" + _py2_str(array.tobytes()) + b"tb"
    return out


def _py2_value(value):
    if isinstance(value, numpy.ndarray):
        return _py2_uint8_array(value)
    if isinstance(value, bytes):
        return _py2_str(value)
    if isinstance(value, list):
        return b"](" + b"".join(_py2_value(v) for v in value) + b"e"
    return _py2_int(int(value))


def py2_pickle(batch):
    """Pickles a batch dict (bytes keys; uint8 arrays, lists, bytes, ints)
    the way Python 2's cPickle.dump(..., protocol=2) wrote the real ones."""
    out = b"\x80\x02}("
    for key, value in batch.items():
        out += _py2_str(key) + _py2_value(value)
    return out + b"u."


def _make_batches(rng, sizes, n_classes, label_key):
    batches = []
    for n in sizes:
        data = rng.integers(0, 256, size=(n, 3072), dtype=numpy.uint8)
        data[0, :2] = (0, 255)  # both ends of the pixel range
        batch = {
            b"batch_label": b"generated batch",
            label_key: rng.integers(0, n_classes, size=n).tolist(),
            b"data": data,
            b"filenames": [b"img_%d.png" % i for i in range(n)],
        }
        if label_key == b"fine_labels":
            # CIFAR-100 also has the 20 coarse labels, which are not used.
            batch[b"coarse_labels"] = [19 - (v % 20) for v in batch[label_key]]
        batches.append(batch)
    return batches


def _add_member(archive, name, content):
    info = tarfile.TarInfo(name)
    info.size = len(content)
    archive.addfile(info, io.BytesIO(content))


def write_archive(path, name, *, seed=0, dumps=py2_pickle, replace=None):
    """Writes a small archive of dataset ``name`` ('cifar-10' or 'cifar-100').

    Returns ``(train_x, train_y, test_x, test_y)`` as written. ``replace``
    maps a member's batch name to raw bytes written instead of its pickle.
    """
    rng = numpy.random.default_rng(seed)
    spec = cifar._SPECS[name]
    train_sizes = [2] * len(spec.train) if name == "cifar-10" else [7]
    train = _make_batches(rng, train_sizes, spec.n_classes, spec.label_key)
    test = _make_batches(rng, [3], spec.n_classes, spec.label_key)
    replace = replace or {}
    with tarfile.open(path, "w:gz") as archive:
        _add_member(archive, f"{spec.folder}/batches.meta", dumps({b"x": [1]}))
        for member, batch in zip(spec.train + spec.test, train + test, strict=True):
            content = replace.get(member)
            if content is None:
                content = dumps(batch)
            _add_member(archive, f"{spec.folder}/{member}", content)

    def stack(batches):
        x = numpy.concatenate([b[b"data"] for b in batches])
        y = numpy.concatenate([b[spec.label_key] for b in batches])
        return x, y

    return (*stack(train), *stack(test))


def _md5(path):
    return hashlib.md5(path.read_bytes()).hexdigest()


@pytest.fixture
def serve(http_server, monkeypatch):
    """``serve(name, **write_archive_kwargs)``: writes the archive of
    ``name`` into the server's directory and points the getter at it (with
    the archive's true MD5 and no system directory); returns the arrays."""

    def serve(name, *, md5=True, **kwargs):
        spec = cifar._SPECS[name]
        path = http_server.directory / spec.archive
        arrays = write_archive(path, name, **kwargs)
        monkeypatch.setitem(
            cifar._SPECS,
            name,
            spec._replace(
                url=http_server.url_for(spec.archive),
                md5=_md5(path) if md5 is True else md5,
                system_dirs=(),
            ),
        )
        return arrays

    return serve


def _unzip(dataset):
    images = numpy.stack([example[0] for example in dataset])
    labels = numpy.array([example[1] for example in dataset])
    return images, labels


def _cache_dir(dataset_root):
    return dataset_root / "pfnet" / "chainer" / "cifar"


def _downloads(dataset_root):
    cache = dataset_root / "_dl_cache"
    if not cache.exists():
        return []
    return sorted(p.name for p in cache.iterdir() if not p.name.startswith("_dl_lock"))


# ------------------------------------------------------------------ tests


def test_public_names():
    assert chainer.datasets.get_cifar10 is cifar.get_cifar10
    assert chainer.datasets.get_cifar100 is cifar.get_cifar100


def test_get_cifar10_defaults(serve, http_server):
    train_x, train_y, test_x, test_y = serve("cifar-10")
    train, test = chainer.datasets.get_cifar10()
    assert len(train) == 10
    assert len(test) == 3
    images, labels = _unzip(train)
    assert images.shape == (10, 3, 32, 32)
    assert images.dtype == numpy.float32
    assert labels.dtype == numpy.int32
    # Batches in order 1..5, each image's 3072 bytes as R, G, B planes.
    expected = train_x.reshape(10, 3, 32, 32).astype(numpy.float32) / 255
    numpy.testing.assert_allclose(images, expected, rtol=1e-6)
    assert images.min() == 0.0
    assert images.max() == 1.0
    numpy.testing.assert_array_equal(labels, train_y)
    test_images, test_labels = _unzip(test)
    numpy.testing.assert_allclose(
        test_images, test_x.reshape(3, 3, 32, 32) / 255, rtol=1e-6
    )
    numpy.testing.assert_array_equal(test_labels, test_y)
    assert http_server.count("cifar-10-python.tar.gz") == 1


@pytest.mark.parametrize("withlabel", [True, False])
@pytest.mark.parametrize("dtype", [None, numpy.float16, numpy.float64, "float32"])
def test_get_cifar10_arguments(serve, http_server, withlabel, dtype):
    train_x, train_y, test_x, test_y = serve("cifar-10")
    expected_dtype = numpy.dtype(dtype or numpy.float32)
    rtol = 1e-3 if expected_dtype == numpy.float16 else 1e-6
    for ndim, scale in itertools.product([1, 3], [1.0, 255.0, 2]):
        train, test = cifar.get_cifar10(
            withlabel=withlabel, ndim=ndim, scale=scale, dtype=dtype
        )
        shape = (3072,) if ndim == 1 else (3, 32, 32)
        for dataset, x, y in ((train, train_x, train_y), (test, test_x, test_y)):
            if withlabel:
                images, labels = _unzip(dataset)
                assert labels.dtype == numpy.int32
                numpy.testing.assert_array_equal(labels, y)
            else:
                assert isinstance(dataset, numpy.ndarray)
                images = dataset
            assert images.shape == (len(x), *shape)
            assert images.dtype == expected_dtype
            numpy.testing.assert_allclose(
                images, (x / 255 * scale).reshape(-1, *shape), rtol=rtol
            )
            assert images.max() == pytest.approx(scale, rel=rtol)
    # Every combination is made from the one cached conversion.
    assert http_server.count("cifar-10-python.tar.gz") == 1


def test_dtype_default_follows_config(serve):
    serve("cifar-10")
    with chainer.using_config("dtype", numpy.float64):
        train, _ = cifar.get_cifar10(withlabel=False)
    assert train.dtype == numpy.float64


def test_get_cifar100_uses_fine_labels(serve, http_server, dataset_root):
    train_x, train_y, test_x, test_y = serve("cifar-100")
    train, test = cifar.get_cifar100(ndim=1, scale=255.0)
    images, labels = _unzip(train)
    assert images.shape == (7, 3072)
    numpy.testing.assert_array_equal(images, train_x)
    numpy.testing.assert_array_equal(labels, train_y)
    assert labels.dtype == numpy.int32
    test_images, test_labels = _unzip(test)
    numpy.testing.assert_array_equal(test_images, test_x)
    numpy.testing.assert_array_equal(test_labels, test_y)
    assert http_server.count("cifar-100-python.tar.gz") == 1
    assert (_cache_dir(dataset_root) / "cifar-100.npz").is_file()


def test_get_cifar100_arguments(serve):
    _, _, test_x, _ = serve("cifar-100")
    _, test = cifar.get_cifar100(withlabel=False, ndim=3, dtype=numpy.float16)
    assert test.shape == (3, 3, 32, 32)
    assert test.dtype == numpy.float16
    numpy.testing.assert_allclose(test, test_x.reshape(3, 3, 32, 32) / 255, rtol=1e-3)


def test_second_call_reads_the_cache(serve, http_server, dataset_root):
    serve("cifar-10")
    first = cifar.get_cifar10(withlabel=False)
    npz = _cache_dir(dataset_root) / "cifar-10.npz"
    with numpy.load(npz) as cached:
        assert sorted(cached.files) == ["test_x", "test_y", "train_x", "train_y"]
        assert cached["train_x"].shape == (10, 3072)
        assert cached["train_x"].dtype == numpy.uint8
        assert cached["train_y"].shape == (10,)
    # Neither the server nor the downloaded archive is needed any more.
    for name in _downloads(dataset_root):
        os.remove(dataset_root / "_dl_cache" / name)
    (http_server.directory / "cifar-10-python.tar.gz").unlink()
    second = cifar.get_cifar10(withlabel=False)
    assert http_server.count("cifar-10-python.tar.gz") == 1
    numpy.testing.assert_array_equal(first[0], second[0])
    numpy.testing.assert_array_equal(first[1], second[1])


def test_reads_a_cache_written_by_chainer(serve, http_server, dataset_root):
    serve("cifar-10")
    rng = numpy.random.default_rng(1)
    arrays = {
        "train_x": rng.integers(0, 256, (4, 3072), dtype=numpy.uint8),
        "train_y": numpy.array([0, 9, 3, 1], dtype=numpy.uint8),
        "test_x": rng.integers(0, 256, (2, 3072), dtype=numpy.uint8),
        "test_y": numpy.array([5, 5], dtype=numpy.uint8),
    }
    _cache_dir(dataset_root).mkdir(parents=True)
    numpy.savez_compressed(_cache_dir(dataset_root) / "cifar-10.npz", **arrays)
    train, test = cifar.get_cifar10(ndim=1, scale=255.0)
    images, labels = _unzip(train)
    numpy.testing.assert_array_equal(images, arrays["train_x"])
    numpy.testing.assert_array_equal(labels, [0, 9, 3, 1])
    assert len(test) == 2
    assert http_server.requests == []


def test_python3_protocol2_pickles(serve):
    # Batches re-pickled by Python 3 (bytes as _codecs.encode(..., 'latin1'),
    # numpy 2's numpy._core path) read the same.
    train_x, train_y, _, _ = serve("cifar-10", dumps=lambda b: pickle.dumps(b, 2))
    train, _ = cifar.get_cifar10(ndim=1, scale=255.0)
    images, labels = _unzip(train)
    numpy.testing.assert_array_equal(images, train_x)
    numpy.testing.assert_array_equal(labels, train_y)


def test_py2_pickle_writer_matches_pickle():
    # The hand-written opcodes are a valid pickle of the same content.
    batch = {b"data": numpy.arange(6, dtype=numpy.uint8).reshape(2, 3), b"l": [1, 300]}
    loaded = pickle.loads(py2_pickle(batch), encoding="bytes")
    numpy.testing.assert_array_equal(loaded[b"data"], batch[b"data"])
    assert loaded[b"l"] == [1, 300]


class _RunsCode:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.makedirs, (self.marker,))


class _Eval:
    def __reduce__(self):
        return (eval, ("1 + 1",))


class _Rot13:
    def __reduce__(self):
        import _codecs

        return (_codecs.encode, ("abc", "rot13"))


@pytest.mark.parametrize("payload", ["makedirs", "eval", "codecs", "persid"])
def test_malicious_pickle_is_refused(serve, dataset_root, tmp_path, payload):
    marker = tmp_path / "pwned"
    if payload == "persid":
        content = b"\x80\x02}(U\x04dataP1\nu."
    else:
        obj = {"makedirs": _RunsCode(marker), "eval": _Eval(), "codecs": _Rot13()}
        content = pickle.dumps({b"data": obj[payload]}, protocol=2)
    serve("cifar-10", replace={"data_batch_3": content})
    with pytest.raises(pickle.UnpicklingError, match="data_batch_3") as info:
        cifar.get_cifar10()
    assert "never contains" in str(info.value)
    assert not marker.exists()
    assert not (_cache_dir(dataset_root) / "cifar-10.npz").exists()


def test_unpickler_refuses_other_numpy_globals():
    content = pickle.dumps({b"f": numpy.load}, protocol=2)
    with pytest.raises(pickle.UnpicklingError, match="numpy"):
        cifar._BatchUnpickler(io.BytesIO(content)).load()


def test_checksum_mismatch(serve, http_server, dataset_root):
    serve("cifar-10", md5="0" * 32)
    with pytest.raises(_retrieval.ChecksumError, match="checksum") as info:
        cifar.get_cifar10()
    assert isinstance(info.value, ValueError)
    assert cifar._SPECS["cifar-10"].url in str(info.value)
    assert _downloads(dataset_root) == []
    assert not (_cache_dir(dataset_root) / "cifar-10.npz").exists()
    assert http_server.count("cifar-10-python.tar.gz") == 1


def test_publisher_checksums_are_kept():
    assert cifar._SPECS["cifar-10"].md5 == "c58f30108f718f92721af3b95e74349a"
    assert cifar._SPECS["cifar-100"].md5 == "eb9058c3a382ffc7106e4002c42a8d85"
    assert cifar._SPECS["cifar-10"].url == (
        "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    )
    assert cifar._SPECS["cifar-100"].url == (
        "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    )


def test_interrupted_download(serve, http_server, dataset_root):
    serve("cifar-10")
    http_server.broken.add("cifar-10-python.tar.gz")
    with pytest.raises(OSError, match="incomplete"):
        cifar.get_cifar10()
    assert _downloads(dataset_root) == []
    assert not (_cache_dir(dataset_root) / "cifar-10.npz").exists()
    http_server.broken.clear()
    train, _ = cifar.get_cifar10()
    assert len(train) == 10


@pytest.mark.parametrize(
    ("replace", "match"),
    [
        ({"data_batch_2": b"\x80\x02}(U\x04data"}, "data_batch_2.*not a readable"),
        ({"test_batch": pickle.dumps([1, 2], protocol=2)}, "holds a list"),
        (
            {"data_batch_1": py2_pickle({b"labels": [1], b"data": b"x"})},
            "holds a bytes as data",
        ),
        (
            {
                "data_batch_1": py2_pickle(
                    {b"labels": [1], b"data": numpy.zeros((1, 10), numpy.uint8)}
                )
            },
            r"shape \(1, 10\)",
        ),
        (
            {
                "data_batch_1": py2_pickle(
                    {b"labels": [10], b"data": numpy.zeros((1, 3072), numpy.uint8)}
                )
            },
            r"class indices in \[0, 10\)",
        ),
        (
            {
                "data_batch_1": py2_pickle(
                    {b"labels": [1, 2], b"data": numpy.zeros((1, 3072), numpy.uint8)}
                )
            },
            "1 images but 2 labels",
        ),
        (
            {"data_batch_1": py2_pickle({b"data": numpy.zeros((1, 3072), "u1")})},
            "no 'labels' entry",
        ),
    ],
)
def test_bad_batches(serve, dataset_root, replace, match):
    serve("cifar-10", replace=replace)
    with pytest.raises(ValueError, match=match) as info:
        cifar.get_cifar10()
    assert "cifar-10-python.tar.gz" in str(info.value) or "_dl_cache" in str(info.value)
    # Nothing half-made is cached, and the bad download is gone.
    assert not (_cache_dir(dataset_root) / "cifar-10.npz").exists()
    assert _downloads(dataset_root) == []


def test_missing_member(serve, http_server):
    serve("cifar-10", md5=None)
    # The CIFAR-100 archive served under the CIFAR-10 name.
    write_archive(http_server.directory / "cifar-10-python.tar.gz", "cifar-100")
    with pytest.raises(
        ValueError, match="no member 'cifar-10-batches-py/data_batch_1'"
    ):
        cifar.get_cifar10()


def test_not_an_archive(serve, http_server, dataset_root):
    serve("cifar-10", md5=None)
    (http_server.directory / "cifar-10-python.tar.gz").write_bytes(b"<html>oops")
    with pytest.raises(ValueError, match="not a complete tar.gz archive"):
        cifar.get_cifar10()
    assert _downloads(dataset_root) == []


def test_truncated_archive(serve, http_server, dataset_root):
    serve("cifar-10", md5=None)
    path = http_server.directory / "cifar-10-python.tar.gz"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ValueError, match="corrupt"):
        cifar.get_cifar10()
    assert not (_cache_dir(dataset_root) / "cifar-10.npz").exists()


def test_archive_put_in_the_dataset_directory(serve, http_server, dataset_root):
    spec = cifar._SPECS["cifar-10"]
    train_x, *_ = serve("cifar-10")
    directory = _cache_dir(dataset_root)
    directory.mkdir(parents=True)
    (directory / spec.archive).write_bytes(
        (http_server.directory / spec.archive).read_bytes()
    )
    train, _ = cifar.get_cifar10(withlabel=False, ndim=1, scale=255.0)
    numpy.testing.assert_array_equal(train, train_x)
    assert http_server.requests == []


def test_local_copy_with_wrong_checksum_is_skipped(serve, http_server, dataset_root):
    spec = cifar._SPECS["cifar-10"]
    serve("cifar-10")
    directory = _cache_dir(dataset_root)
    directory.mkdir(parents=True)
    (directory / spec.archive).write_bytes(b"not the archive")
    with pytest.warns(UserWarning, match="skipping"):
        train, _ = cifar.get_cifar10()
    assert len(train) == 10
    assert http_server.count(spec.archive) == 1


def test_system_directory(serve, http_server, monkeypatch, tmp_path):
    serve("cifar-100")
    system = tmp_path / "usr-share-datasets-cifar-100"
    system.mkdir()
    spec = cifar._SPECS["cifar-100"]
    (system / spec.archive).write_bytes(
        (http_server.directory / spec.archive).read_bytes()
    )
    monkeypatch.setitem(
        cifar._SPECS,
        "cifar-100",
        cifar._SPECS["cifar-100"]._replace(system_dirs=(str(system),)),
    )
    train, test = cifar.get_cifar100()
    assert (len(train), len(test)) == (7, 3)
    assert http_server.requests == []


def test_no_network(serve, monkeypatch, unreachable_url, dataset_root):
    serve("cifar-10")
    spec = cifar._SPECS["cifar-10"]
    monkeypatch.setitem(
        cifar._SPECS,
        "cifar-10",
        spec._replace(
            url=unreachable_url + spec.archive,
            system_dirs=("/nonexistent/cifar-10",),
        ),
    )
    with pytest.raises(_retrieval.DatasetNotFoundError) as info:
        cifar.get_cifar10()
    message = str(info.value)
    assert "CIFAR-10" in message
    assert str(_cache_dir(dataset_root) / spec.archive) in message
    assert "/nonexistent/cifar-10/cifar-10-python.tar.gz" in message
    assert unreachable_url + spec.archive in message


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"ndim": 2}, ValueError, "invalid ndim for CIFAR dataset: 2"),
        ({"ndim": True}, TypeError, "invalid ndim"),
        ({"ndim": "3"}, TypeError, "invalid ndim"),
        ({"dtype": numpy.int32}, TypeError, "floating point"),
        ({"dtype": "nonsense"}, TypeError, "dtype"),
        ({"scale": math.nan}, ValueError, "scale"),
        ({"scale": "1"}, TypeError, "scale"),
    ],
)
@pytest.mark.parametrize("getter", ["get_cifar10", "get_cifar100"])
def test_bad_arguments_fail_before_download(
    serve, http_server, getter, kwargs, error, match
):
    serve("cifar-10")
    with pytest.raises(error, match=match):
        getattr(cifar, getter)(**kwargs)
    assert http_server.requests == []


_TWO_PROCESSES = textwrap.dedent(
    """
    import sys
    from chainer.dataset import download
    from chainer.datasets import cifar
    root, url, md5 = sys.argv[1:]
    download.set_dataset_root(root)
    spec = cifar._SPECS["cifar-10"]
    cifar._SPECS["cifar-10"] = spec._replace(url=url, md5=md5, system_dirs=())
    train, test = cifar.get_cifar10(ndim=1, scale=255.0, withlabel=False)
    print(int(train.sum()), int(test.sum()))
    """
)


def test_two_processes_download_once(serve, http_server, dataset_root):
    train_x, _, test_x, _ = serve("cifar-10")
    spec = cifar._SPECS["cifar-10"]
    http_server.delay = 0.3  # both processes arrive while the first downloads
    env = dict(os.environ, PYTHONWARNINGS="error")
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _TWO_PROCESSES,
                str(dataset_root),
                spec.url,
                spec.md5,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    for process in processes:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert out.split() == [str(int(train_x.sum())), str(int(test_x.sum()))]
    assert http_server.count(spec.archive) == 1
    assert _downloads(dataset_root) == [hashlib.md5(spec.url.encode()).hexdigest()]


@pytest.mark.parametrize(
    "arrays",
    [
        {"train_x": numpy.zeros((2, 3072))},
        {
            "train_x": numpy.zeros((2, 3072)),
            "train_y": numpy.zeros(2, numpy.uint8),
            "test_x": numpy.zeros((1, 3072), numpy.uint8),
            "test_y": numpy.zeros(1, numpy.uint8),
        },
        {
            "train_x": numpy.zeros((2, 3072), numpy.uint8),
            "train_y": numpy.array([0, 10], numpy.uint8),
            "test_x": numpy.zeros((1, 3072), numpy.uint8),
            "test_y": numpy.zeros(1, numpy.uint8),
        },
    ],
)
def test_damaged_cache_is_remade(serve, dataset_root, arrays):
    train_x, *_ = serve("cifar-10")
    _cache_dir(dataset_root).mkdir(parents=True)
    numpy.savez_compressed(_cache_dir(dataset_root) / "cifar-10.npz", **arrays)
    with pytest.warns(UserWarning, match="cifar-10.npz is unreadable"):
        train, _ = cifar.get_cifar10(withlabel=False, ndim=1, scale=255.0)
    numpy.testing.assert_array_equal(train, train_x)
