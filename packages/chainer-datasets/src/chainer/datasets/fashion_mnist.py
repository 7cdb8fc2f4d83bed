"""The Fashion-MNIST dataset of Zalando's article images."""

import numpy

from chainer.datasets import _retrieval

_TITLE = "Fashion-MNIST"
_DATASET_DIR = "pfnet/chainer/fashion-mnist"
_BASE_URLS = ("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",)
# Debian/Ubuntu's dataset-fashion-mnist package installs the four files here.
_SYSTEM_DIRS = ("/usr/share/datasets/fashion-mnist",)
# MD5s of the .gz files, as the publisher lists them in the README of
# https://github.com/zalandoresearch/fashion-mnist; downloads must match.
_MD5 = {
    "train-images-idx3-ubyte.gz": "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
    "train-labels-idx1-ubyte.gz": "25c81989df183df01b3e8a0aad5dffbe",
    "t10k-images-idx3-ubyte.gz": "bef4ecab320f06d8554ea6380940ec79",
    "t10k-labels-idx1-ubyte.gz": "bb300cfdad3c16e7a12a480ee83cd310",
}
# SHA-256s of the DECOMPRESSED files. Debian recompressed its copies (gzip
# mtime 2020-06-05), so their .gz MD5s differ from the publisher's while the
# content is the same. Computed with `zcat <file>.gz | sha256sum` from
# dataset-fashion-mnist 0.0~git20200523.55506a9-1, whose .gz files match the
# MD5s dpkg recorded for the package. A local copy (system directory or put
# by hand) must match these or the publisher's MD5.
_CONTENT_SHA256 = {
    "train-images-idx3-ubyte.gz": (
        "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888"
    ),
    "train-labels-idx1-ubyte.gz": (
        "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9"
    ),
    "t10k-images-idx3-ubyte.gz": (
        "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b"
    ),
    "t10k-labels-idx1-ubyte.gz": (
        "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34"
    ),
}
_HINT = (
    "On Debian or Ubuntu, `sudo apt install dataset-fashion-mnist` installs "
    "the dataset in /usr/share/datasets/fashion-mnist, where it is found offline."
)
_LABELS = (
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
)


def get_fashion_mnist_labels():
    """Provides the names of the ten Fashion-MNIST classes.

    Returns:
        list of str: The class names, indexed by label.
    """
    return list(_LABELS)


def get_fashion_mnist(
    withlabel=True,
    ndim=1,
    scale=1.0,
    dtype=None,
    label_dtype=numpy.int32,
    rgb_format=False,
):
    """Gets the Fashion-MNIST dataset.

    `Fashion-MNIST <https://github.com/zalandoresearch/fashion-mnist/>`_ is a
    set of 70,000 gray images of clothing, 28x28 pixels each, with labels of
    ten classes (see :func:`get_fashion_mnist_labels`): 60,000 for training
    and 10,000 for testing. The raw files are taken from
    ``<dataset root>/pfnet/chainer/fashion-mnist/`` if put there by hand,
    else from ``/usr/share/datasets/fashion-mnist`` (Debian's
    ``dataset-fashion-mnist`` package), else downloaded and checked against
    the publisher's MD5s. They are converted once into ``train.npz`` and
    ``test.npz`` in the first directory (Chainer's layout).

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


def _check_local(filename, path):
    if _retrieval.file_digest(path, "md5") == _MD5[filename]:
        return None
    content = _retrieval.file_digest(path, "sha256", gunzip=True)
    if content == _CONTENT_SHA256[filename]:
        return None
    return (
        f"neither its md5 nor the sha256 of its content matches the "
        f"published Fashion-MNIST file (content sha256 {content})"
    )


def _retrieve(split):
    return _retrieval.load_mnist_split(
        split,
        _DATASET_DIR,
        _BASE_URLS,
        title=_TITLE,
        system_dirs=_SYSTEM_DIRS,
        md5s=_MD5,
        check_local=_check_local,
        hint=_HINT,
    )
