"""Tests of Chainer 7's MNIST-format helpers (``chainer.datasets._mnist_helper``)."""

import numpy
import pytest

from chainer import dataset
from chainer import datasets
from chainer.datasets import _mnist_helper


def test_make_npz_downloads_parses_and_saves(http_server, write_mnist, tmp_path):
    images, labels = write_mnist(http_server.directory)["train"]
    urls = (
        http_server.url_for("train-images-idx3-ubyte.gz"),
        http_server.url_for("train-labels-idx1-ubyte.gz"),
    )
    path = tmp_path / "train.npz"
    raw = _mnist_helper.make_npz(str(path), urls)
    numpy.testing.assert_array_equal(raw["x"], images.reshape(len(images), 784))
    numpy.testing.assert_array_equal(raw["y"], labels)
    assert raw["x"].dtype == raw["y"].dtype == numpy.uint8
    with numpy.load(path) as saved:
        numpy.testing.assert_array_equal(saved["x"], raw["x"])
        numpy.testing.assert_array_equal(saved["y"], raw["y"])
    # The usual pairing with cache_or_load_file: the second call loads.
    cached = tmp_path / "cached.npz"
    for _ in range(2):
        dataset.cache_or_load_file(
            str(cached), lambda p: _mnist_helper.make_npz(p, urls), numpy.load
        )
    assert http_server.count("train-images-idx3-ubyte.gz") == 1


def test_make_npz_rejects_a_wrong_pair(http_server, write_idx, tmp_path):
    write_idx(http_server.directory / "x.gz", numpy.zeros((3, 28, 28), numpy.uint8))
    write_idx(http_server.directory / "y.gz", numpy.zeros(2, numpy.uint8))
    urls = (http_server.url_for("x.gz"), http_server.url_for("y.gz"))
    with pytest.raises(ValueError, match="not a pair"):
        _mnist_helper.make_npz(str(tmp_path / "bad.npz"), urls)


@pytest.mark.parametrize(
    ("ndim", "rgb_format", "shape"),
    [
        (1, False, (784,)),
        (2, False, (28, 28)),
        (3, False, (1, 28, 28)),
        (3, True, (3, 28, 28)),
    ],
)
def test_preprocess_mnist(ndim, rgb_format, shape):
    rng = numpy.random.RandomState(0)
    raw = {
        "x": rng.randint(0, 256, (4, 784)).astype(numpy.uint8),
        "y": numpy.arange(4, dtype=numpy.uint8),
    }
    ds = _mnist_helper.preprocess_mnist(
        raw, True, ndim, 2.0, numpy.float64, numpy.int64, rgb_format
    )
    assert isinstance(ds, datasets.TupleDataset)
    x, t = ds[3]
    assert x.shape == shape
    assert x.dtype == numpy.float64
    assert t.dtype == numpy.int64
    expected = raw["x"][3].reshape((1, *shape[-2:]) if ndim == 3 else shape) * (
        2.0 / 255
    )
    numpy.testing.assert_allclose(x, numpy.broadcast_to(expected, shape))
    images = _mnist_helper.preprocess_mnist(
        raw, False, ndim, 1.0, numpy.float32, numpy.int32, rgb_format
    )
    assert images.shape == (4, *shape)
    assert images.max() <= 1.0


def test_preprocess_mnist_rejects_a_bad_ndim():
    raw = {"x": numpy.zeros((1, 784), numpy.uint8), "y": numpy.zeros(1, numpy.uint8)}
    with pytest.raises(ValueError, match="ndim must be 1, 2 or 3"):
        _mnist_helper.preprocess_mnist(
            raw, True, 4, 1.0, numpy.float32, numpy.int32, False
        )
