"""Tests of get_fashion_mnist: downloads checked against MD5s, the system
directory of Debian's dataset-fashion-mnist package, the real files."""

import gzip
import hashlib
import os
import time

import numpy
import pytest

from chainer import datasets
from chainer.datasets import _retrieval
from chainer.datasets import fashion_mnist

FILES = [
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
]
DEBIAN_DIR = "/usr/share/datasets/fashion-mnist"
DEFAULT_SYSTEM_DIRS = fashion_mnist._SYSTEM_DIRS  # before any fixture patches it


@pytest.fixture(autouse=True)
def _no_system_dirs(monkeypatch):
    # The tests choose the system directories; the real one is used only by
    # test_real_debian_files.
    monkeypatch.setattr(fashion_mnist, "_SYSTEM_DIRS", ())


def _digests(directory):
    md5, content = {}, {}
    for name in FILES:
        path = directory / name
        md5[name] = hashlib.md5(path.read_bytes()).hexdigest()
        content[name] = hashlib.sha256(gzip.decompress(path.read_bytes())).hexdigest()
    return md5, content


def _trust(monkeypatch, directory, *, md5=True, content=True):
    """Makes the files in ``directory`` the published ones."""
    md5s, contents = _digests(directory)
    if md5:
        monkeypatch.setattr(fashion_mnist, "_MD5", md5s)
    if content:
        monkeypatch.setattr(fashion_mnist, "_CONTENT_SHA256", contents)


@pytest.fixture
def served(http_server, write_mnist, monkeypatch):
    written = write_mnist(http_server.directory)
    monkeypatch.setattr(fashion_mnist, "_BASE_URLS", (http_server.url,))
    _trust(monkeypatch, http_server.directory)
    return written


def _labels_of(dataset):
    return numpy.array([label for _, label in dataset[:]])


def test_public_names():
    assert datasets.get_fashion_mnist is fashion_mnist.get_fashion_mnist
    assert datasets.get_fashion_mnist_labels is fashion_mnist.get_fashion_mnist_labels


def test_labels():
    labels = fashion_mnist.get_fashion_mnist_labels()
    assert labels == [
        "T-shirt/top",
        "Trouser",
        "Pullover",
        "Dress",
        "Coat",
        "Sandal",
        "Shirt",
        "Sneaker",
        "Bag",
        "Ankle boot",
    ]
    labels.append("changed")  # a fresh list each call
    assert len(fashion_mnist.get_fashion_mnist_labels()) == 10


def test_publisher_checksums():
    assert fashion_mnist._MD5 == {
        "train-images-idx3-ubyte.gz": "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
        "train-labels-idx1-ubyte.gz": "25c81989df183df01b3e8a0aad5dffbe",
        "t10k-images-idx3-ubyte.gz": "bef4ecab320f06d8554ea6380940ec79",
        "t10k-labels-idx1-ubyte.gz": "bb300cfdad3c16e7a12a480ee83cd310",
    }


def test_download(served, http_server, dataset_root):
    train, test = fashion_mnist.get_fashion_mnist(ndim=2, scale=255.0)
    assert (len(train), len(test)) == (6, 4)
    image, label = test[1]
    assert image.shape == (28, 28)
    assert image.dtype == numpy.float32
    assert label.dtype == numpy.int32
    numpy.testing.assert_allclose(image, served["test"][0][1], rtol=1e-6)
    numpy.testing.assert_array_equal(_labels_of(test), served["test"][1])
    assert sorted(http_server.requests) == sorted("/" + name for name in FILES)
    directory = dataset_root / "pfnet" / "chainer" / "fashion-mnist"
    assert sorted(os.listdir(directory)) == ["test.npz", "train.npz"]
    # Cached: no more requests.
    images, _ = fashion_mnist.get_fashion_mnist(withlabel=False, ndim=3)
    assert images.shape == (6, 1, 28, 28)
    assert len(http_server.requests) == 4


def test_rgb_format(served):
    _, test = fashion_mnist.get_fashion_mnist(
        withlabel=False, ndim=3, rgb_format=True, dtype=numpy.float64
    )
    assert test.shape == (4, 3, 28, 28)
    assert test.dtype == numpy.float64
    for channel in range(3):
        numpy.testing.assert_allclose(test[:, channel], served["test"][0] / 255.0)


def test_checksum_mismatch(served, http_server, dataset_root, monkeypatch):
    monkeypatch.setattr(
        fashion_mnist,
        "_MD5",
        dict(fashion_mnist._MD5, **{FILES[0]: "8d4fb7e6c68d591d4c3dfef9ec88bf0d"}),
    )
    with pytest.raises(ValueError) as info:
        fashion_mnist.get_fashion_mnist()
    message = str(info.value)
    assert message.startswith("Fashion-MNIST: the file downloaded from ")
    assert http_server.url_for(FILES[0]) in message
    assert "8d4fb7e6c68d591d4c3dfef9ec88bf0d" in message
    assert "deleted" in message
    assert os.listdir(dataset_root / "_dl_cache") == ["_dl_lock"]
    assert not os.listdir(dataset_root / "pfnet" / "chainer" / "fashion-mnist")


def test_system_dir(tmp_path, write_mnist, unreachable_url, monkeypatch):
    system = tmp_path / "system"
    written = write_mnist(system, n_train=3, n_test=2)
    # Recompressed like Debian's copies: only the content digest matches.
    _trust(monkeypatch, system, md5=False)
    monkeypatch.setattr(
        fashion_mnist, "_SYSTEM_DIRS", (str(tmp_path / "x"), str(system))
    )
    monkeypatch.setattr(fashion_mnist, "_BASE_URLS", (unreachable_url,))
    train, test = fashion_mnist.get_fashion_mnist()
    assert (len(train), len(test)) == (3, 2)
    numpy.testing.assert_array_equal(_labels_of(train), written["train"][1])


def test_publisher_copy_put_by_hand(dataset_root, write_mnist, monkeypatch):
    directory = dataset_root / "pfnet" / "chainer" / "fashion-mnist"
    write_mnist(directory)
    _trust(monkeypatch, directory, content=False)  # only the .gz MD5s match
    monkeypatch.setattr(fashion_mnist, "_BASE_URLS", ())
    train, _ = fashion_mnist.get_fashion_mnist()
    assert len(train) == 6


def test_bad_system_copy_is_skipped(
    tmp_path, served, http_server, write_mnist, monkeypatch
):
    system = tmp_path / "system"
    write_mnist(system, seed=1)  # other content than the published (served) one
    monkeypatch.setattr(fashion_mnist, "_SYSTEM_DIRS", (str(system),))
    with pytest.warns(UserWarning, match=f"skipping {system}.*content sha256"):
        _, test = fashion_mnist.get_fashion_mnist()
    numpy.testing.assert_array_equal(_labels_of(test), served["test"][1])
    assert len(http_server.requests) == 4


def test_no_network_mentions_the_package(dataset_root, unreachable_url, monkeypatch):
    monkeypatch.setattr(fashion_mnist, "_BASE_URLS", (unreachable_url,))
    monkeypatch.setattr(fashion_mnist, "_SYSTEM_DIRS", (DEBIAN_DIR + "-absent",))
    with pytest.raises(OSError) as info:
        fashion_mnist.get_fashion_mnist()
    message = str(info.value)
    assert message.startswith("Fashion-MNIST: cannot find or download train-images")
    assert f"{DEBIAN_DIR}-absent/train-images-idx3-ubyte.gz: not found" in message
    assert f"{unreachable_url}train-images-idx3-ubyte.gz" in message
    assert "apt install dataset-fashion-mnist" in message


def test_default_sources():
    assert DEFAULT_SYSTEM_DIRS == (DEBIAN_DIR,)
    assert fashion_mnist._BASE_URLS == (
        "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
    )


@pytest.mark.slow
@pytest.mark.skipif(
    not os.path.isdir(DEBIAN_DIR),
    reason="needs Debian's dataset-fashion-mnist package (apt install "
    "dataset-fashion-mnist)",
)
def test_real_debian_files(dataset_root, unreachable_url, monkeypatch):
    monkeypatch.setattr(fashion_mnist, "_SYSTEM_DIRS", (DEBIAN_DIR,))
    monkeypatch.setattr(fashion_mnist, "_BASE_URLS", (unreachable_url,))
    train, test = fashion_mnist.get_fashion_mnist()
    assert (len(train), len(test)) == (60000, 10000)
    for dataset in (train, test):
        image, label = dataset[0]
        assert image.shape == (784,)
        assert image.dtype == numpy.float32
        assert label.dtype == numpy.int32
        labels = _labels_of(dataset)
        assert labels.min() == 0
        assert labels.max() == 9
        assert numpy.bincount(labels).tolist() == [len(dataset) // 10] * 10
        images = numpy.stack([x for x, _ in dataset[:100]])
        assert images.min() == 0.0
        assert images.max() == 1.0
    cache = dataset_root / "pfnet" / "chainer" / "fashion-mnist" / "train.npz"
    mtime = cache.stat().st_mtime_ns

    def fail(*args):
        raise AssertionError("the raw files are read again")

    monkeypatch.setattr(_retrieval, "read_idx", fail)
    start = time.perf_counter()
    images, _ = fashion_mnist.get_fashion_mnist(withlabel=False, ndim=2)
    assert time.perf_counter() - start < 5
    assert images.shape == (60000, 28, 28)
    assert cache.stat().st_mtime_ns == mtime
