"""Tests of the getters' shared machinery: finding, downloading, idx parsing,
caching, argument checks."""

import gzip
import hashlib
import os
import socket
import struct
import threading

import numpy
import pytest

import chainer
from chainer.datasets import _retrieval

DIR = "test/ds"


def _files_in(path):
    return sorted(
        os.path.relpath(os.path.join(d, f), path)
        for d, _, files in os.walk(path)
        for f in files
    )


# ---------------------------------------------------------------- find_file


def test_find_file_prefers_dataset_root(dataset_root, tmp_path, http_server):
    own = dataset_root / DIR / "a.bin"
    own.parent.mkdir(parents=True)
    own.write_bytes(b"own")
    system = tmp_path / "system"
    system.mkdir()
    (system / "a.bin").write_bytes(b"system")
    (http_server.directory / "a.bin").write_bytes(b"served")
    path = _retrieval.find_file(
        DIR,
        "a.bin",
        [http_server.url_for("a.bin")],
        title="T",
        system_dirs=[str(system)],
    )
    assert path == str(own)
    assert http_server.requests == []


def test_find_file_then_system_dirs(tmp_path, http_server):
    first, second = tmp_path / "sys1", tmp_path / "sys2"
    first.mkdir()
    second.mkdir()
    (second / "a.bin").write_bytes(b"system")
    path = _retrieval.find_file(
        DIR,
        "a.bin",
        [http_server.url_for("a.bin")],
        title="T",
        system_dirs=[str(first), str(second)],
    )
    assert path == str(second / "a.bin")
    assert http_server.requests == []


def test_find_file_downloads_last(dataset_root, http_server):
    (http_server.directory / "a.bin").write_bytes(b"served")
    md5 = hashlib.md5(b"served").hexdigest()
    path = _retrieval.find_file(
        DIR, "a.bin", [http_server.url_for("a.bin")], title="T", md5=md5
    )
    with open(path, "rb") as f:
        assert f.read() == b"served"
    assert os.path.dirname(path) == str(dataset_root / "_dl_cache")
    # The second call is served from the download cache.
    assert (
        _retrieval.find_file(
            DIR, "a.bin", [http_server.url_for("a.bin")], title="T", md5=md5
        )
        == path
    )
    assert http_server.count("a.bin") == 1


def test_find_file_falls_back_to_next_url(unreachable_url, http_server):
    (http_server.directory / "a.bin").write_bytes(b"served")
    urls = [unreachable_url + "a.bin", http_server.url + "missing/a.bin"]
    urls.append(http_server.url_for("a.bin"))
    path = _retrieval.find_file(DIR, "a.bin", urls, title="T")
    with open(path, "rb") as f:
        assert f.read() == b"served"


def test_find_file_skips_bad_local_copy_with_warning(dataset_root, http_server):
    own = dataset_root / DIR / "a.bin"
    own.parent.mkdir(parents=True)
    own.write_bytes(b"damaged")
    (http_server.directory / "a.bin").write_bytes(b"served")
    sha256 = hashlib.sha256(b"served").hexdigest()
    with pytest.warns(UserWarning, match=f"skipping {own}: its sha256 is"):
        path = _retrieval.find_file(
            DIR, "a.bin", [http_server.url_for("a.bin")], title="T", sha256=sha256
        )
    with open(path, "rb") as f:
        assert f.read() == b"served"


def test_find_file_custom_local_check(dataset_root, unreachable_url):
    own = dataset_root / DIR / "a.bin"
    own.parent.mkdir(parents=True)
    own.write_bytes(b"x")
    seen = []

    def check(path):
        seen.append(path)
        return None

    # The default check would reject it (wrong md5); the custom one accepts.
    path = _retrieval.find_file(
        DIR, "a.bin", [unreachable_url], title="T", md5="0" * 32, check_local=check
    )
    assert path == str(own) == seen[0]


def test_find_file_not_found_lists_every_place(dataset_root, tmp_path, unreachable_url):
    system = tmp_path / "system"
    url = unreachable_url + "a.bin"
    with pytest.raises(_retrieval.DatasetNotFoundError) as info:
        _retrieval.find_file(
            DIR,
            "a.bin",
            [url],
            title="Some-Data",
            system_dirs=[str(system)],
            hint="Try the package.",
        )
    message = str(info.value)
    assert isinstance(info.value, OSError)
    assert message.startswith("Some-Data: cannot find or download a.bin")
    assert f"{dataset_root / DIR / 'a.bin'}: not found" in message
    assert f"{system / 'a.bin'}: not found" in message
    assert f"{url}: " in message
    assert "refused" in message.lower()
    assert f"download {url} yourself and put it at {dataset_root / DIR}" in message
    assert f"The dataset root is {dataset_root}" in message
    assert message.endswith("Try the package.")
    assert isinstance(info.value.__cause__, OSError)


def test_find_file_checksum_mismatch(dataset_root, http_server):
    (http_server.directory / "a.bin").write_bytes(b"altered")
    with pytest.raises(_retrieval.ChecksumError) as info:
        _retrieval.find_file(
            DIR,
            "a.bin",
            [http_server.url_for("a.bin")],
            title="T",
            md5="0123456789abcdef0123456789abcdef",
        )
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert http_server.url_for("a.bin") in message
    assert "0123456789abcdef0123456789abcdef" in message
    assert hashlib.md5(b"altered").hexdigest() in message
    assert "nothing was cached" in message
    assert _files_in(dataset_root / "_dl_cache") == ["_dl_lock"]


def test_find_file_interrupted_download(dataset_root, http_server):
    (http_server.directory / "a.bin").write_bytes(bytes(range(256)) * 64)
    http_server.broken.add("a.bin")
    url = http_server.url_for("a.bin")
    with pytest.raises(_retrieval.DatasetNotFoundError, match="incomplete"):
        _retrieval.find_file(DIR, "a.bin", [url], title="T")
    assert _files_in(dataset_root / "_dl_cache") == ["_dl_lock"]
    http_server.broken.clear()
    path = _retrieval.find_file(DIR, "a.bin", [url], title="T")
    with open(path, "rb") as f:
        assert f.read() == bytes(range(256)) * 64


def test_file_digest(tmp_path):
    path = tmp_path / "a.gz"
    with gzip.open(path, "wb") as f:
        f.write(b"content")
    assert (
        _retrieval.file_digest(path, "md5")
        == hashlib.md5(path.read_bytes()).hexdigest()
    )
    assert (
        _retrieval.file_digest(path, "sha256", gunzip=True)
        == hashlib.sha256(b"content").hexdigest()
    )


def test_corrupt_downloaded_file_is_deleted(dataset_root, http_server):
    (http_server.directory / "a.bin").write_bytes(b"x")
    path = _retrieval.find_file(DIR, "a.bin", [http_server.url_for("a.bin")], title="T")
    error = _retrieval.corrupt_file_error(path, "it is bad")
    assert isinstance(error, ValueError)
    assert str(error).startswith(f"{path} is corrupt: it is bad.")
    assert "deleted" in str(error)
    assert not os.path.exists(path)


def test_corrupt_local_file_is_kept(tmp_path):
    path = tmp_path / "a.bin"
    path.write_bytes(b"x")
    error = _retrieval.corrupt_file_error(str(path), "it is bad")
    assert "Replace or remove that file" in str(error)
    assert path.exists()


# ----------------------------------------------------------------- read_idx


@pytest.mark.parametrize("dtype", ["u1", "i1", "i2", "i4", "f4", "f8"])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
def test_read_idx_round_trip(tmp_path, write_idx, dtype, shape):
    array = (numpy.arange(numpy.prod(shape)) - 2).reshape(shape).astype(dtype)
    path = write_idx(tmp_path / "a.gz", array)
    result = _retrieval.read_idx(path)
    assert result.dtype == numpy.dtype(dtype)
    assert result.dtype.isnative
    numpy.testing.assert_array_equal(result, array)


def _write_gz(path, data):
    with gzip.open(path, "wb") as f:
        f.write(data)
    return path


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "holds 0 bytes, no idx header"),
        (b"\x00\x00", "holds 2 bytes, no idx header"),
        (
            b"\x01\x00\x08\x01" + struct.pack(">I", 1) + b"\x00",
            "magic number 0x01000801",
        ),
        (
            b"\x00\x00\x07\x01" + struct.pack(">I", 1) + b"\x00",
            "magic number 0x00000701",
        ),
        (b"\x00\x00\x08\x00", "magic number 0x00000800"),
        (b"\x00\x00\x08\x03" + struct.pack(">I", 1), "header is truncated"),
        (
            b"\x00\x00\x08\x02" + struct.pack(">II", 2, 3) + b"\x00" * 5,
            "shape (2, 3) (6 bytes of data) but 5 bytes follow",
        ),
        (
            b"\x00\x00\x08\x01" + struct.pack(">I", 2) + b"\x00" * 3,
            "shape (2,) (2 bytes of data) but 3 bytes follow",
        ),
    ],
)
def test_read_idx_rejects_bad_headers(tmp_path, data, problem):
    path = _write_gz(tmp_path / "bad.gz", data)
    with pytest.raises(ValueError) as info:
        _retrieval.read_idx(str(path))
    assert str(info.value).startswith(f"{path} is corrupt")
    assert problem in str(info.value)


def test_read_idx_rejects_truncated_gzip(tmp_path, write_idx):
    path = write_idx(tmp_path / "a.gz", numpy.arange(1000, dtype=numpy.int32))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="is corrupt: it is not a complete gzip"):
        _retrieval.read_idx(str(path))


def test_read_idx_rejects_non_gzip(tmp_path):
    path = tmp_path / "a.gz"
    path.write_bytes(b"\x00\x00\x08\x01\x00\x00\x00\x01\x05")
    with pytest.raises(ValueError, match="is corrupt: it is not a complete gzip"):
        _retrieval.read_idx(str(path))


def test_mnist_arrays(tmp_path, write_mnist):
    written = write_mnist(tmp_path, n_train=3, n_test=2)
    arrays = _retrieval.mnist_arrays(
        str(tmp_path / "t10k-images-idx3-ubyte.gz"),
        str(tmp_path / "t10k-labels-idx1-ubyte.gz"),
    )
    images, labels = written["test"]
    assert arrays["x"].dtype == arrays["y"].dtype == numpy.uint8
    numpy.testing.assert_array_equal(arrays["x"], images.reshape(2, 784))
    numpy.testing.assert_array_equal(arrays["y"], labels)


def test_mnist_arrays_rejects_mismatched_pair(tmp_path, write_idx):
    images = write_idx(tmp_path / "i.gz", numpy.zeros((3, 28, 28), numpy.uint8))
    labels = write_idx(tmp_path / "l.gz", numpy.zeros(2, numpy.uint8))
    with pytest.raises(ValueError, match="holds 3 images but .* holds 2 labels"):
        _retrieval.mnist_arrays(str(images), str(labels))


@pytest.mark.parametrize(
    ("images", "labels", "bad"),
    [
        (numpy.zeros((2, 27, 28), numpy.uint8), numpy.zeros(2, numpy.uint8), "i"),
        (numpy.zeros((2, 784), numpy.uint8), numpy.zeros(2, numpy.uint8), "i"),
        (numpy.zeros((2, 28, 28), numpy.int32), numpy.zeros(2, numpy.uint8), "i"),
        (numpy.zeros((2, 28, 28), numpy.uint8), numpy.zeros((2, 1), numpy.uint8), "l"),
        (numpy.zeros((2, 28, 28), numpy.uint8), numpy.zeros(2, numpy.int32), "l"),
    ],
)
def test_mnist_arrays_rejects_wrong_content(tmp_path, write_idx, images, labels, bad):
    paths = {
        "i": write_idx(tmp_path / "i.gz", images),
        "l": write_idx(tmp_path / "l.gz", labels),
    }
    with pytest.raises(ValueError, match=f"{paths[bad]} is corrupt: it holds"):
        _retrieval.mnist_arrays(str(paths["i"]), str(paths["l"]))


# ------------------------------------------------------------- cache_arrays


def test_cache_arrays_creates_once_then_loads(dataset_root):
    calls = []

    def create():
        calls.append(1)
        return {"a": numpy.arange(3), "b": numpy.ones((2, 2), numpy.uint8)}

    first = _retrieval.cache_arrays(DIR, "c.npz", create)
    second = _retrieval.cache_arrays(DIR, "c.npz", create)
    assert len(calls) == 1
    assert _files_in(dataset_root / DIR) == ["c.npz"]
    for arrays in (first, second):
        assert sorted(arrays) == ["a", "b"]
        numpy.testing.assert_array_equal(arrays["a"], numpy.arange(3))
        assert arrays["b"].dtype == numpy.uint8


def test_cache_arrays_creator_error_leaves_nothing(dataset_root):
    def create():
        raise ValueError("raw file is corrupt")

    with pytest.raises(ValueError, match="raw file is corrupt"):
        _retrieval.cache_arrays(DIR, "c.npz", create)
    assert _files_in(dataset_root / DIR) == []


def test_cache_arrays_interrupted_write_leaves_nothing(dataset_root, monkeypatch):
    real_savez = numpy.savez_compressed

    def interrupted(path, **arrays):
        with open(path, "wb") as f:
            f.write(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(numpy, "savez_compressed", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _retrieval.cache_arrays(DIR, "c.npz", lambda: {"a": numpy.arange(3)})
    assert _files_in(dataset_root / DIR) == []
    monkeypatch.setattr(numpy, "savez_compressed", real_savez)
    arrays = _retrieval.cache_arrays(DIR, "c.npz", lambda: {"a": numpy.arange(3)})
    numpy.testing.assert_array_equal(arrays["a"], numpy.arange(3))


@pytest.mark.parametrize(
    "content",
    [b"not a zip at all", b"PK\x03\x04 truncated", None],
    ids=["garbage", "truncated", "pickled"],
)
def test_cache_arrays_remakes_unreadable_cache(dataset_root, content):
    path = dataset_root / DIR / "c.npz"
    path.parent.mkdir(parents=True)
    if content is None:
        # An object array needs pickle, which the loader refuses.
        numpy.savez(path, a=numpy.array([{"x": 1}], dtype=object))
    else:
        path.write_bytes(content)
    with pytest.warns(UserWarning, match="unreadable"):
        arrays = _retrieval.cache_arrays(DIR, "c.npz", lambda: {"a": numpy.arange(2)})
    numpy.testing.assert_array_equal(arrays["a"], numpy.arange(2))
    with numpy.load(path, allow_pickle=False) as npz:
        numpy.testing.assert_array_equal(npz["a"], numpy.arange(2))


def test_cache_arrays_remakes_cache_rejected_by_check(dataset_root):
    path = dataset_root / DIR / "train.npz"
    path.parent.mkdir(parents=True)
    numpy.savez_compressed(path, x=numpy.zeros((2, 10), numpy.uint8))
    good = {"x": numpy.zeros((2, 784), numpy.uint8), "y": numpy.zeros(2, numpy.uint8)}
    with pytest.warns(UserWarning, match="expected arrays 'x' and 'y'"):
        arrays = _retrieval.cache_arrays(
            DIR, "train.npz", lambda: good, _retrieval.check_mnist_arrays
        )
    assert arrays["x"].shape == (2, 784)


def test_check_mnist_arrays_shapes():
    with pytest.raises(ValueError, match="unexpected shapes"):
        _retrieval.check_mnist_arrays({"x": numpy.zeros((2, 784)), "y": numpy.zeros(3)})


# --------------------------------------------------------------- arguments


def test_resolve_image_dtype_default_follows_config():
    assert _retrieval.resolve_image_dtype(None) == numpy.float32
    with chainer.using_config("dtype", numpy.float16):
        assert _retrieval.resolve_image_dtype(None) == numpy.float16
    assert _retrieval.resolve_image_dtype("f8") == numpy.float64


@pytest.mark.parametrize(
    ("dtype", "error", "match"),
    [
        (numpy.int32, TypeError, "floating point type .* got int32"),
        ("nonsense", TypeError, "must be a numpy dtype, got 'nonsense'"),
    ],
)
def test_resolve_image_dtype_rejects(dtype, error, match):
    with pytest.raises(error, match=match):
        _retrieval.resolve_image_dtype(dtype)


@pytest.mark.parametrize(
    ("label_dtype", "match"),
    [
        ("nonsense", "must be a numpy dtype, got 'nonsense'"),
        (object, "numeric type, got object"),
        (numpy.bool_, "numeric type, got bool"),
    ],
)
def test_resolve_label_dtype_rejects(label_dtype, match):
    with pytest.raises(TypeError, match=match):
        _retrieval.resolve_label_dtype(label_dtype)


@pytest.mark.parametrize(
    ("scale", "error"),
    [
        ("1", TypeError),
        (None, TypeError),
        (True, TypeError),
        (float("nan"), ValueError),
    ],
)
def test_check_scale_rejects(scale, error):
    with pytest.raises(error, match="scale must be"):
        _retrieval.check_scale(scale)


def test_scale_pixels():
    images = numpy.array([[0, 51, 255]], numpy.uint8)
    result = _retrieval.scale_pixels(images, 5, numpy.dtype(numpy.float32))
    assert result.dtype == numpy.float32
    numpy.testing.assert_allclose(result, [[0.0, 1.0, 5.0]], rtol=1e-6)


@pytest.mark.parametrize(
    ("ndim", "error"),
    [(0, ValueError), (4, ValueError), ("1", TypeError), (True, TypeError)],
)
def test_mnist_preprocessor_rejects_ndim(ndim, error):
    with pytest.raises(error, match="ndim must be 1, 2 or 3"):
        _retrieval.mnist_preprocessor(True, ndim, 1.0, None, numpy.int32, False)


def test_mnist_preprocessor_accepts_numpy_integer_ndim():
    raw = {"x": numpy.zeros((2, 784), numpy.uint8), "y": numpy.zeros(2, numpy.uint8)}
    images = _retrieval.mnist_preprocessor(
        False, numpy.int64(2), 1.0, None, numpy.int32, False
    )(raw)
    assert images.shape == (2, 28, 28)


def test_find_file_survives_a_server_that_is_not_http(dataset_root):
    # A server answering garbage makes http.client raise HTTPException, which
    # is no OSError: it counts as a failed source like a refused connection.
    listener = socket.create_server(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/a.bin"

    def answer():
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(b"garbage\r\n\r\n")

    thread = threading.Thread(target=answer)
    thread.start()
    try:
        with pytest.raises(_retrieval.DatasetNotFoundError, match="BadStatusLine"):
            _retrieval.find_file(DIR, "a.bin", [url], title="T")
    finally:
        thread.join()
        listener.close()
    assert _files_in(dataset_root / "_dl_cache") == ["_dl_lock"]
