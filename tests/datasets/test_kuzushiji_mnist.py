"""Tests of get_kuzushiji_mnist against idx files served from 127.0.0.1."""

import os

import numpy
import pytest

from chainer import datasets
from chainer.datasets import kuzushiji_mnist


@pytest.fixture
def served(http_server, write_mnist, monkeypatch):
    written = write_mnist(http_server.directory, n_train=5, n_test=3)
    monkeypatch.setattr(kuzushiji_mnist, "_BASE_URLS", (http_server.url,))
    return written


def test_public_names():
    assert datasets.get_kuzushiji_mnist is kuzushiji_mnist.get_kuzushiji_mnist
    assert (
        datasets.get_kuzushiji_mnist_labels
        is kuzushiji_mnist.get_kuzushiji_mnist_labels
    )


def test_labels():
    labels = kuzushiji_mnist.get_kuzushiji_mnist_labels()
    assert [name for name, _ in labels] == [
        "o",
        "ki",
        "su",
        "tsu",
        "na",
        "ha",
        "ma",
        "ya",
        "re",
        "wo",
    ]
    assert "".join(char for _, char in labels) == "おきすつなはまやれを"
    labels.clear()  # a fresh list each call
    assert len(kuzushiji_mnist.get_kuzushiji_mnist_labels()) == 10


def test_default_sources():
    assert kuzushiji_mnist._BASE_URLS[-1] == (
        "http://codh.rois.ac.jp/kmnist/dataset/kmnist/"
    )


def test_download_and_cache(served, http_server, dataset_root):
    train, test = kuzushiji_mnist.get_kuzushiji_mnist()
    assert (len(train), len(test)) == (5, 3)
    image, label = train[2]
    assert image.shape == (784,)
    assert image.dtype == numpy.float32
    assert label.dtype == numpy.int32
    numpy.testing.assert_allclose(
        image, served["train"][0][2].ravel() / numpy.float32(255), rtol=1e-6
    )
    assert [int(y) for _, y in train[:]] == served["train"][1].tolist()
    directory = dataset_root / "pfnet" / "chainer" / "kuzushiji_mnist"
    assert sorted(os.listdir(directory)) == ["test.npz", "train.npz"]
    assert len(http_server.requests) == 4
    images, _ = kuzushiji_mnist.get_kuzushiji_mnist(
        withlabel=False, ndim=3, rgb_format=True, scale=2.0, dtype=numpy.float16
    )
    assert len(http_server.requests) == 4
    assert images.shape == (5, 3, 28, 28)
    assert images.dtype == numpy.float16
    numpy.testing.assert_allclose(
        images[:, 1], served["train"][0] * (2.0 / 255), rtol=1e-3
    )


def test_bad_ndim(served, http_server):
    with pytest.raises(ValueError, match="ndim must be 1, 2 or 3, got 0"):
        kuzushiji_mnist.get_kuzushiji_mnist(ndim=0)
    assert http_server.requests == []


def test_no_network(dataset_root, unreachable_url, monkeypatch):
    monkeypatch.setattr(kuzushiji_mnist, "_BASE_URLS", (unreachable_url,))
    with pytest.raises(OSError) as info:
        kuzushiji_mnist.get_kuzushiji_mnist()
    message = str(info.value)
    assert message.startswith("Kuzushiji-MNIST: cannot find or download train-")
    assert str(dataset_root / "pfnet" / "chainer" / "kuzushiji_mnist") in message
    assert unreachable_url in message
