"""get_svhn against small MATLAB files in the publisher's layout.

The real ``{train,test,extra}_32x32.mat`` hold ``X``, uint8 of shape
``(32, 32, 3, N)``, and ``y``, uint8 of shape ``(N, 1)`` with the digit 0
labelled 10. The tests write such files with ``scipy.io.savemat``.
"""

import itertools
import sys

import numpy
import pytest

import chainer
from chainer.datasets import _retrieval
from chainer.datasets import svhn

SIZES = {"train": 5, "test": 3, "extra": 4}


@pytest.fixture
def savemat():
    io = pytest.importorskip(
        "scipy.io", reason="writing SVHN's MATLAB files needs SciPy"
    )
    return io.savemat


def make_split(n, seed):
    rng = numpy.random.default_rng(seed)
    x = rng.integers(0, 256, size=(32, 32, 3, n), dtype=numpy.uint8)
    x[0, 0, 0, 0], x[0, 0, 1, 0] = 0, 255
    # Labels 1..10, 10 being the digit 0; every split has a 10.
    y = rng.integers(1, 11, size=(n, 1)).astype(numpy.uint8)
    y[0, 0] = 10
    return x, y


@pytest.fixture
def serve(http_server, monkeypatch, savemat):
    """Writes the three .mat files into the server's directory and points
    the getter at it; returns ``{split: (X, y)}`` as written."""
    monkeypatch.setattr(svhn, "_BASE_URL", http_server.url)
    monkeypatch.setattr(svhn, "_SYSTEM_DIRS", ())
    written = {}
    for seed, (split, n) in enumerate(SIZES.items()):
        x, y = make_split(n, seed)
        savemat(http_server.directory / f"{split}_32x32.mat", {"X": x, "y": y})
        written[split] = (x, y)
    return written


def _unzip(dataset):
    images = numpy.stack([example[0] for example in dataset])
    labels = numpy.array([example[1] for example in dataset])
    return images, labels


def _expected_images(x, scale=1.0):
    # images[n, c, h, w] == X[h, w, c, n]
    return x.transpose(3, 2, 0, 1) / 255 * scale


def _expected_labels(y):
    labels = y.reshape(-1).astype(numpy.int64)
    labels[labels == 10] = 0
    return labels


def _cache_dir(dataset_root):
    return dataset_root / "pfnet" / "chainer" / "svhn"


def test_public_name():
    assert chainer.datasets.get_svhn is svhn.get_svhn


def test_defaults(serve, http_server):
    result = svhn.get_svhn()
    assert len(result) == 2
    for dataset, split in zip(result, ("train", "test"), strict=True):
        x, y = serve[split]
        images, labels = _unzip(dataset)
        assert images.shape == (SIZES[split], 3, 32, 32)
        assert images.dtype == numpy.float32
        numpy.testing.assert_allclose(images, _expected_images(x), rtol=1e-6)
        assert labels.dtype == numpy.int32
        numpy.testing.assert_array_equal(labels, _expected_labels(y))
        assert labels[0] == 0  # the file's 10
        assert labels.max() <= 9
    assert http_server.count("extra_32x32.mat") == 0


def test_pixel_layout(serve):
    x, _ = serve["train"]
    train, _ = svhn.get_svhn(withlabel=False, scale=255.0)
    # Channel 1 (green) of image 2 at row 4, column 7.
    assert train[2, 1, 4, 7] == x[4, 7, 1, 2]


@pytest.mark.parametrize("withlabel", [True, False])
@pytest.mark.parametrize("dtype", [None, numpy.float16, numpy.float64])
def test_arguments(serve, http_server, withlabel, dtype):
    expected_dtype = numpy.dtype(dtype or numpy.float32)
    rtol = 1e-3 if expected_dtype == numpy.float16 else 1e-6
    for scale, label_dtype in itertools.product(
        [1.0, 255.0, 3], [numpy.int32, numpy.int64, numpy.uint8, numpy.float32]
    ):
        train, test = svhn.get_svhn(
            withlabel=withlabel, scale=scale, dtype=dtype, label_dtype=label_dtype
        )
        for dataset, split in ((train, "train"), (test, "test")):
            x, y = serve[split]
            if withlabel:
                images, labels = _unzip(dataset)
                assert labels.dtype == label_dtype
                numpy.testing.assert_array_equal(labels, _expected_labels(y))
            else:
                assert isinstance(dataset, numpy.ndarray)
                images = dataset
            assert images.dtype == expected_dtype
            numpy.testing.assert_allclose(images, _expected_images(x, scale), rtol=rtol)
    assert http_server.count("train_32x32.mat") == 1
    assert http_server.count("test_32x32.mat") == 1


def test_dtype_default_follows_config(serve):
    with chainer.using_config("dtype", numpy.float16):
        train, _ = svhn.get_svhn(withlabel=False)
    assert train.dtype == numpy.float16


@pytest.mark.parametrize("withlabel", [True, False])
def test_add_extra(serve, http_server, withlabel):
    result = svhn.get_svhn(withlabel=withlabel, add_extra=True)
    assert len(result) == 3
    extra = result[2]
    x, y = serve["extra"]
    if withlabel:
        images, labels = _unzip(extra)
        numpy.testing.assert_array_equal(labels, _expected_labels(y))
    else:
        images = extra
    numpy.testing.assert_allclose(images, _expected_images(x), rtol=1e-6)
    assert http_server.count("extra_32x32.mat") == 1


def test_second_call_reads_the_cache(serve, http_server, dataset_root):
    first = svhn.get_svhn(withlabel=False, add_extra=True)
    for split in SIZES:
        with numpy.load(_cache_dir(dataset_root) / f"{split}.npz") as cached:
            assert sorted(cached.files) == ["x", "y"]
            assert cached["x"].shape == (32, 32, 3, SIZES[split])
            assert cached["x"].dtype == numpy.uint8
            assert cached["y"].shape == (SIZES[split], 1)
            numpy.testing.assert_array_equal(cached["y"], serve[split][1])
        (http_server.directory / f"{split}_32x32.mat").unlink()
    second = svhn.get_svhn(withlabel=False, add_extra=True)
    for a, b in zip(first, second, strict=True):
        numpy.testing.assert_array_equal(a, b)
    assert len(http_server.requests) == 3


def test_cache_needs_no_scipy(serve, monkeypatch):
    svhn.get_svhn()
    # scipy cannot be imported any more; the caches are enough.
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.io", None)
    train, _ = svhn.get_svhn()
    assert len(train) == SIZES["train"]


def test_without_scipy(monkeypatch, http_server, dataset_root):
    monkeypatch.setattr(svhn, "_BASE_URL", http_server.url)
    monkeypatch.setattr(svhn, "_SYSTEM_DIRS", ())
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.io", None)
    with pytest.raises(RuntimeError, match=r"pip install 'chainer-datasets\[svhn\]'"):
        svhn.get_svhn()
    # Nothing was downloaded for nothing, nothing cached.
    assert http_server.requests == []
    assert not (_cache_dir(dataset_root) / "train.npz").exists()


def test_reads_a_cache_written_by_chainer(serve, http_server, dataset_root):
    x, y = make_split(2, seed=7)
    _cache_dir(dataset_root).mkdir(parents=True)
    for split in ("train", "test"):
        numpy.savez_compressed(_cache_dir(dataset_root) / f"{split}.npz", x=x, y=y)
    _, test = svhn.get_svhn(scale=255.0)
    images, labels = _unzip(test)
    numpy.testing.assert_array_equal(images, x.transpose(3, 2, 0, 1))
    numpy.testing.assert_array_equal(labels, _expected_labels(y))
    assert http_server.requests == []


def test_damaged_cache_is_remade(serve, dataset_root):
    _cache_dir(dataset_root).mkdir(parents=True)
    numpy.savez_compressed(
        _cache_dir(dataset_root) / "train.npz",
        x=numpy.zeros((32, 32, 3, 2)),
        y=numpy.ones((2, 1), numpy.uint8),
    )
    with pytest.warns(UserWarning, match="train.npz is unreadable"):
        train, _ = svhn.get_svhn(withlabel=False)
    numpy.testing.assert_allclose(train, _expected_images(serve["train"][0]), rtol=1e-6)


def test_file_put_in_the_dataset_directory(serve, http_server, dataset_root):
    directory = _cache_dir(dataset_root)
    directory.mkdir(parents=True)
    for split in ("train", "test"):
        name = f"{split}_32x32.mat"
        (directory / name).write_bytes((http_server.directory / name).read_bytes())
    train, _ = svhn.get_svhn()
    assert len(train) == SIZES["train"]
    assert http_server.requests == []


def test_system_directory(serve, http_server, monkeypatch, tmp_path):
    system = tmp_path / "usr-share-datasets-svhn"
    system.mkdir()
    for split in ("train", "test"):
        name = f"{split}_32x32.mat"
        (system / name).write_bytes((http_server.directory / name).read_bytes())
    monkeypatch.setattr(svhn, "_SYSTEM_DIRS", (str(system),))
    train, test = svhn.get_svhn()
    assert (len(train), len(test)) == (SIZES["train"], SIZES["test"])
    assert http_server.requests == []


def test_no_publisher_checksum():
    assert svhn._MD5 == {}
    assert svhn._BASE_URL == "http://ufldl.stanford.edu/housenumbers/"


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ({"X": numpy.zeros((32, 32, 3, 2), numpy.uint8)}, "lacks the variables"),
        (
            {
                "X": numpy.zeros((28, 28, 3, 2), numpy.uint8),
                "y": numpy.ones((2, 1), numpy.uint8),
            },
            r"shape \(28, 28, 3, 2\)",
        ),
        (
            {
                "X": numpy.zeros((32, 32, 3, 2), numpy.uint8),
                "y": numpy.ones((3, 1), numpy.uint8),
            },
            "2 images but 3 labels",
        ),
        (
            {
                "X": numpy.zeros((32, 32, 3, 1), numpy.uint8),
                "y": numpy.full((1, 1), 11, numpy.uint8),
            },
            r"labels are not integers in \[0, 10\]",
        ),
        (
            {
                "X": numpy.full((32, 32, 3, 1), 256.0),
                "y": numpy.ones((1, 1), numpy.uint8),
            },
            r"pixels are not integers in \[0, 255\]",
        ),
        (
            {
                "X": numpy.zeros((32, 32, 3, 1), numpy.uint8),
                "y": numpy.full((1, 1), 1.5),
            },
            "labels are not integers",
        ),
    ],
)
def test_bad_files(serve, http_server, savemat, dataset_root, content, match):
    savemat(http_server.directory / "train_32x32.mat", content)
    with pytest.raises(ValueError, match=match) as info:
        svhn.get_svhn()
    assert "is corrupt" in str(info.value)
    assert not (_cache_dir(dataset_root) / "train.npz").exists()
    # The bad download was deleted, so a fixed file is fetched next time.
    x, y = make_split(2, seed=3)
    savemat(http_server.directory / "train_32x32.mat", {"X": x, "y": y})
    train, _ = svhn.get_svhn()
    assert len(train) == 2


@pytest.mark.parametrize("damage", ["html", "truncated"])
def test_not_a_mat_file(serve, http_server, dataset_root, damage):
    path = http_server.directory / "test_32x32.mat"
    if damage == "html":
        path.write_bytes(b"<html>moved</html>")
    else:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ValueError, match="not a readable MATLAB file"):
        svhn.get_svhn()
    assert not (_cache_dir(dataset_root) / "test.npz").exists()


def test_interrupted_download(serve, http_server, dataset_root):
    http_server.broken.add("train_32x32.mat")
    with pytest.raises(OSError, match="incomplete"):
        svhn.get_svhn()
    assert not (_cache_dir(dataset_root) / "train.npz").exists()
    http_server.broken.clear()
    train, _ = svhn.get_svhn()
    assert len(train) == SIZES["train"]


def test_no_network(savemat, monkeypatch, unreachable_url, dataset_root):
    monkeypatch.setattr(svhn, "_BASE_URL", unreachable_url)
    monkeypatch.setattr(svhn, "_SYSTEM_DIRS", ("/nonexistent/svhn",))
    with pytest.raises(_retrieval.DatasetNotFoundError) as info:
        svhn.get_svhn()
    message = str(info.value)
    assert "SVHN" in message
    assert str(_cache_dir(dataset_root) / "train_32x32.mat") in message
    assert "/nonexistent/svhn/train_32x32.mat" in message
    assert unreachable_url + "train_32x32.mat" in message


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"dtype": numpy.int32}, TypeError, "floating point"),
        ({"scale": float("inf")}, ValueError, "scale"),
        ({"scale": None}, TypeError, "scale"),
        ({"label_dtype": "nonsense"}, TypeError, "label_dtype"),
        ({"label_dtype": numpy.str_}, TypeError, "label_dtype"),
    ],
)
def test_bad_arguments_fail_before_download(
    http_server, monkeypatch, kwargs, error, match
):
    monkeypatch.setattr(svhn, "_BASE_URL", http_server.url)
    with pytest.raises(error, match=match):
        svhn.get_svhn(**kwargs)
    assert http_server.requests == []
