"""The MNIST dataset of handwritten digits."""

import numpy

from chainer.datasets import _retrieval

_TITLE = "MNIST"
_DATASET_DIR = "pfnet/chainer/mnist"
# yann.lecun.com is often down; the mirror PyTorch uses serves the same files.
_BASE_URLS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "http://yann.lecun.com/exdb/mnist/",
)
_SYSTEM_DIRS = ()


def get_mnist(
    withlabel=True,
    ndim=1,
    scale=1.0,
    dtype=None,
    label_dtype=numpy.int32,
    rgb_format=False,
):
    """Gets the MNIST dataset.

    `MNIST <http://yann.lecun.com/exdb/mnist/>`_ is a set of 70,000 gray
    images of handwritten digits, 28x28 pixels each, with their labels
    (0 to 9): 60,000 for training and 10,000 for testing. The raw files are
    taken from ``<dataset root>/pfnet/chainer/mnist/`` if put there by hand,
    else downloaded, and converted once into ``train.npz`` and ``test.npz``
    in that directory (Chainer's layout: caches made by Chainer are reused).

    Args:
        withlabel (bool): If ``True``, each example is a tuple of an image
            and its label; otherwise the datasets hold only the images.
        ndim (int): Number of dimensions of each image: 1 gives shape
            ``(784,)``, 2 gives ``(28, 28)`` and 3 gives ``(1, 28, 28)``.
        scale (float): Pixel values are scaled to ``[0, scale]``; the default
            1 gives ``[0, 1]``.
        dtype: Data type of the images; ``chainer.config.dtype`` by default.
        label_dtype: Data type of the labels.
        rgb_format (bool): If ``ndim == 3`` and this is ``True``, the gray
            channel is repeated to give images of shape ``(3, 28, 28)``.

    Returns:
        tuple: ``(train, test)``. With labels each is a
        :class:`~chainer.datasets.TupleDataset` of images and labels,
        otherwise a :class:`numpy.ndarray` of images.
    """
    preprocess = _retrieval.mnist_preprocessor(
        withlabel, ndim, scale, dtype, label_dtype, rgb_format
    )
    return preprocess(_retrieve("train")), preprocess(_retrieve("test"))


def _retrieve(split):
    return _retrieval.load_mnist_split(
        split, _DATASET_DIR, _BASE_URLS, title=_TITLE, system_dirs=_SYSTEM_DIRS
    )
