"""The Kuzushiji-MNIST dataset of cursive Japanese (hiragana) characters."""

import numpy

from chainer.datasets import _retrieval

_TITLE = "Kuzushiji-MNIST"
_DATASET_DIR = "pfnet/chainer/kuzushiji_mnist"
# The publisher (ROIS-DS Center for Open Data in the Humanities) serves the
# files over both schemes; https first, Chainer's http URL as the fallback.
_BASE_URLS = (
    "https://codh.rois.ac.jp/kmnist/dataset/kmnist/",
    "http://codh.rois.ac.jp/kmnist/dataset/kmnist/",
)
_SYSTEM_DIRS = ()
# Romanized name and the hiragana character of each class, by label.
_LABELS = (
    ("o", "\u304a"),
    ("ki", "\u304d"),
    ("su", "\u3059"),
    ("tsu", "\u3064"),
    ("na", "\u306a"),
    ("ha", "\u306f"),
    ("ma", "\u307e"),
    ("ya", "\u3084"),
    ("re", "\u308c"),
    ("wo", "\u3092"),
)


def get_kuzushiji_mnist_labels():
    """Provides the labels of the ten Kuzushiji-MNIST classes.

    Returns:
        list of tuple: For each label, a tuple of the character's name in
        romaji and the character itself, e.g. ``('o', 'お')`` for label 0.
    """
    return list(_LABELS)


def get_kuzushiji_mnist(
    withlabel=True,
    ndim=1,
    scale=1.0,
    dtype=None,
    label_dtype=numpy.int32,
    rgb_format=False,
):
    """Gets the Kuzushiji-MNIST dataset.

    `Kuzushiji-MNIST <http://codh.rois.ac.jp/kmnist/>`_ is a set of 70,000
    gray images of cursive hiragana characters, 28x28 pixels each, in ten
    classes (see :func:`get_kuzushiji_mnist_labels`): 60,000 for training and
    10,000 for testing. The raw files are taken from
    ``<dataset root>/pfnet/chainer/kuzushiji_mnist/`` if put there by hand,
    else downloaded, and converted once into ``train.npz`` and ``test.npz``
    in that directory (Chainer's layout).

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
