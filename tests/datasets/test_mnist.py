"""Tests of get_mnist against idx files served from 127.0.0.1."""

import os
import subprocess
import sys
import textwrap
import time

import numpy
import pytest

import chainer
from chainer import datasets
from chainer.datasets import _retrieval
from chainer.datasets import mnist
from chainer.datasets import tuple_dataset

FILES = [
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
]


@pytest.fixture
def served(http_server, write_mnist, monkeypatch):
    """MNIST files on the local server, which get_mnist downloads from."""
    written = write_mnist(http_server.directory)
    monkeypatch.setattr(mnist, "_BASE_URLS", (http_server.url,))
    return written


def _columns(dataset):
    images, labels = zip(*dataset[:], strict=True)
    return numpy.stack(images), numpy.array(labels)


def _expected(images, shape, scale, dtype):
    return images.reshape(shape).astype(dtype) * (scale / 255.0)


def test_public_name():
    assert datasets.get_mnist is mnist.get_mnist


def test_default(served, http_server):
    train, test = mnist.get_mnist()
    assert isinstance(train, tuple_dataset.TupleDataset)
    assert (len(train), len(test)) == (6, 4)
    for split, dataset in (("train", train), ("test", test)):
        images, labels = served[split]
        x, y = dataset[0]
        assert x.shape == (784,)
        assert x.dtype == numpy.float32
        assert y.dtype == numpy.int32
        got_x, got_y = _columns(dataset)
        numpy.testing.assert_allclose(
            got_x, _expected(images, (-1, 784), 1.0, numpy.float32), rtol=1e-6
        )
        numpy.testing.assert_array_equal(got_y, labels)
    assert train[0][0][0] == 0.0
    assert train[0][0][1] == 1.0
    assert sorted(http_server.requests) == sorted("/" + name for name in FILES)


@pytest.mark.parametrize(
    ("ndim", "rgb_format", "shape"),
    [
        (1, False, (784,)),
        (1, True, (784,)),
        (2, False, (28, 28)),
        (2, True, (28, 28)),
        (3, False, (1, 28, 28)),
        (3, True, (3, 28, 28)),
    ],
)
@pytest.mark.parametrize("withlabel", [True, False])
def test_ndim_rgb_format_withlabel(served, ndim, rgb_format, shape, withlabel):
    train, test = mnist.get_mnist(withlabel=withlabel, ndim=ndim, rgb_format=rgb_format)
    images = served["test"][0]
    if withlabel:
        got, labels = _columns(test)
        numpy.testing.assert_array_equal(labels, served["test"][1])
    else:
        assert isinstance(test, numpy.ndarray)
        got = test
    assert got.shape == (4, *shape)
    assert got.flags.c_contiguous
    for channel in range(shape[0] if ndim == 3 else 1):
        plane = got[:, channel] if ndim == 3 else got
        numpy.testing.assert_allclose(
            plane.reshape(4, 28, 28), images / numpy.float32(255), rtol=1e-6
        )
    assert len(train) == 6


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("scale", [1.0, 255, 0.5, -2.0])
def test_scale_dtype(served, dtype, scale):
    train, _ = mnist.get_mnist(withlabel=False, scale=scale, dtype=dtype)
    assert train.dtype == dtype
    expected = served["train"][0].reshape(6, 784).astype(numpy.float64) * scale / 255
    numpy.testing.assert_allclose(
        train, expected, rtol=1e-3 if dtype == numpy.float16 else 1e-6
    )


def test_dtype_default_follows_config(served):
    with chainer.using_config("dtype", numpy.float64):
        train, _ = mnist.get_mnist(withlabel=False)
    assert train.dtype == numpy.float64
    with chainer.using_config("dtype", chainer.mixed16):
        train, _ = mnist.get_mnist(withlabel=False)
    assert train.dtype == numpy.float16


@pytest.mark.parametrize("label_dtype", [numpy.int64, numpy.uint8, numpy.float32])
def test_label_dtype(served, label_dtype):
    _, test = mnist.get_mnist(label_dtype=label_dtype)
    _, labels = _columns(test)
    assert labels.dtype == label_dtype
    numpy.testing.assert_array_equal(labels, served["test"][1])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"ndim": 4}, ValueError, "ndim must be 1, 2 or 3, got 4"),
        ({"scale": "1"}, TypeError, "scale must be a real number"),
        ({"dtype": numpy.int32}, TypeError, "floating point type"),
        ({"label_dtype": "nonsense"}, TypeError, "label_dtype must be a numpy"),
    ],
)
def test_bad_arguments_fail_before_downloading(
    served, http_server, kwargs, error, match
):
    with pytest.raises(error, match=match):
        mnist.get_mnist(**kwargs)
    assert http_server.requests == []


def test_second_call_uses_cache(served, http_server, dataset_root, monkeypatch):
    first = mnist.get_mnist(withlabel=False)
    assert len(http_server.requests) == 4
    directory = dataset_root / "pfnet" / "chainer" / "mnist"
    assert sorted(os.listdir(directory)) == ["test.npz", "train.npz"]
    with numpy.load(directory / "train.npz") as npz:
        assert sorted(npz.files) == ["x", "y"]
        assert npz["x"].dtype == numpy.uint8
        assert npz["x"].shape == (6, 784)
        assert npz["y"].dtype == numpy.uint8

    def fail(*args):
        raise AssertionError("the raw files are read again")

    monkeypatch.setattr(_retrieval, "read_idx", fail)
    second = mnist.get_mnist(withlabel=False, ndim=2)
    assert len(http_server.requests) == 4
    numpy.testing.assert_array_equal(second[0].reshape(6, 784), first[0])


def test_reuses_chainer_cache(dataset_root, unreachable_url, monkeypatch):
    # Chainer 7 stores x (N, 784) and y (N,), both uint8, under the same names.
    monkeypatch.setattr(mnist, "_BASE_URLS", (unreachable_url,))
    directory = dataset_root / "pfnet" / "chainer" / "mnist"
    directory.mkdir(parents=True)
    x = numpy.arange(3 * 784).reshape(3, 784).astype(numpy.uint8)
    y = numpy.array([1, 2, 3], numpy.uint8)
    for name in ("train.npz", "test.npz"):
        numpy.savez_compressed(directory / name, x=x, y=y)
    train, _ = mnist.get_mnist(ndim=2, scale=255.0)
    images, labels = _columns(train)
    numpy.testing.assert_allclose(images, x.reshape(3, 28, 28), rtol=1e-6)
    numpy.testing.assert_array_equal(labels, y)


def test_files_put_in_dataset_root_by_hand(dataset_root, write_mnist, monkeypatch):
    monkeypatch.setattr(mnist, "_BASE_URLS", ())
    written = write_mnist(dataset_root / "pfnet" / "chainer" / "mnist", n_train=2)
    train, _ = mnist.get_mnist(withlabel=False, ndim=3, scale=255.0)
    numpy.testing.assert_allclose(train[:, 0], written["train"][0], rtol=1e-6)


def test_system_dirs(tmp_path, write_mnist, unreachable_url, monkeypatch):
    written = write_mnist(tmp_path / "system", n_test=3)
    monkeypatch.setattr(mnist, "_SYSTEM_DIRS", (str(tmp_path / "system"),))
    monkeypatch.setattr(mnist, "_BASE_URLS", (unreachable_url,))
    _, test = mnist.get_mnist()
    numpy.testing.assert_array_equal(_columns(test)[1], written["test"][1])


def test_mirror_fallback(served, http_server, unreachable_url, monkeypatch):
    monkeypatch.setattr(mnist, "_BASE_URLS", (unreachable_url, http_server.url))
    train, test = mnist.get_mnist()
    assert (len(train), len(test)) == (6, 4)


def test_urls_are_chainers_sources():
    # The mirror first, then the original site (often down) as a fallback.
    assert mnist._BASE_URLS[-1] == "http://yann.lecun.com/exdb/mnist/"
    assert mnist._BASE_URLS[0].startswith("https://")


def test_no_network(dataset_root, unreachable_url, monkeypatch):
    monkeypatch.setattr(mnist, "_BASE_URLS", (unreachable_url,))
    with pytest.raises(OSError) as info:
        mnist.get_mnist()
    message = str(info.value)
    own = dataset_root / "pfnet" / "chainer" / "mnist" / "train-images-idx3-ubyte.gz"
    assert message.startswith("MNIST: cannot find or download train-images-idx3")
    assert f"{own}: not found" in message
    assert f"{unreachable_url}train-images-idx3-ubyte.gz: " in message
    assert f"put it at {own}" in message
    assert str(dataset_root) in message
    assert not (own.parent / "train.npz").exists()


def test_interrupted_download(served, http_server, dataset_root):
    http_server.broken.add("train-labels-idx1-ubyte.gz")
    with pytest.raises(OSError, match="incomplete"):
        mnist.get_mnist()
    # Only the complete file made it into the download cache; no npz exists.
    assert len(os.listdir(dataset_root / "_dl_cache")) == 2  # lock + images
    assert not os.listdir(dataset_root / "pfnet" / "chainer" / "mnist")
    http_server.broken.clear()
    train, _ = mnist.get_mnist()
    assert len(train) == 6
    assert http_server.count("train-images-idx3-ubyte.gz") == 1
    assert http_server.count("train-labels-idx1-ubyte.gz") == 2


def test_corrupt_download_is_deleted(served, http_server, dataset_root):
    path = http_server.directory / "t10k-images-idx3-ubyte.gz"
    good = path.read_bytes()
    path.write_bytes(good[: len(good) // 2])  # served whole: a truncated gzip
    with pytest.raises(ValueError, match="is corrupt: it is not a complete gzip"):
        mnist.get_mnist()
    assert not (dataset_root / "pfnet" / "chainer" / "mnist" / "test.npz").exists()
    path.write_bytes(good)
    _, test = mnist.get_mnist()
    numpy.testing.assert_array_equal(_columns(test)[1], served["test"][1])
    assert http_server.count("t10k-images-idx3-ubyte.gz") == 2


def test_mismatched_pair(served, http_server, write_idx):
    write_idx(
        http_server.directory / "t10k-labels-idx1-ubyte.gz",
        numpy.zeros(5, numpy.uint8),
    )
    with pytest.raises(ValueError, match="holds 4 images but .* holds 5 labels"):
        mnist.get_mnist()


_WORKER = textwrap.dedent(
    """
    import os
    import sys
    import time

    from chainer.datasets import mnist

    url, ready, go = sys.argv[1:]
    mnist._BASE_URLS = (url,)
    open(ready, "w").close()
    while not os.path.exists(go):
        time.sleep(0.005)
    train, test = mnist.get_mnist()
    print(len(train), len(test))
    """
)


def test_two_processes_download_once(served, http_server, dataset_root, tmp_path):
    http_server.delay = 0.2  # keeps the first download going while both wait
    env = dict(os.environ, CHAINER_DATASET_ROOT=str(dataset_root))
    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _WORKER,
                http_server.url,
                str(tmp_path / f"r{i}"),
                str(go),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    try:
        deadline = time.monotonic() + 60
        while not all((tmp_path / f"r{i}").exists() for i in range(2)):
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.01)
        go.touch()
        results = [worker.communicate(timeout=60) for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.communicate()
    for worker, (out, err) in zip(workers, results, strict=True):
        assert worker.returncode == 0, err
        assert out.split() == ["6", "4"]
    for name in FILES:
        assert http_server.count(name) == 1, http_server.requests
