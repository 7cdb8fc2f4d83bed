"""Helpers of the getters of MNIST-format datasets, under Chainer 7's names.

Chainer's MNIST, Fashion-MNIST and Kuzushiji-MNIST getters build their
caches with :func:`make_npz` and turn them into datasets with
:func:`preprocess_mnist`; code written for Chainer 7 that adds a dataset in
the same format imports them from here.
"""

import numpy

from chainer.dataset import download
from chainer.datasets import _retrieval


def make_npz(path, urls):
    """Downloads a pair of MNIST-format files and caches them as one NPZ file.

    Args:
        path (str): Path of the NPZ file to write (``numpy.savez_compressed``
            appends ``.npz`` if it is missing).
        urls (tuple of str): URLs of the gzip-compressed idx files of the
            images and of the labels, in this order.

    Returns:
        dict: ``'x'``: uint8 images of shape ``(N, 784)``; ``'y'``: uint8
        labels of shape ``(N,)``.
    """
    x_url, y_url = urls
    x_path = download.cached_download(x_url)
    y_path = download.cached_download(y_url)
    arrays = _retrieval.mnist_arrays(x_path, y_path)
    numpy.savez_compressed(path, **arrays)
    return arrays


def preprocess_mnist(raw, withlabel, ndim, scale, image_dtype, label_dtype, rgb_format):
    """Turns cached MNIST-format arrays into a dataset.

    Args:
        raw (dict): ``'x'`` (uint8 images of shape ``(N, 784)``) and ``'y'``
            (labels), as :func:`make_npz` returns them.
        withlabel (bool): If ``True``, return a
            :class:`~chainer.datasets.TupleDataset` of images and labels;
            otherwise the images only.
        ndim (int): 1 gives images of shape ``(784,)``, 2 ``(28, 28)`` and 3
            ``(1, 28, 28)``.
        scale (float): Pixel values are scaled to ``[0, scale]``.
        image_dtype: Data type of the images (``None``:
            ``chainer.config.dtype``).
        label_dtype: Data type of the labels.
        rgb_format (bool): With ``ndim == 3``, repeat the gray channel to give
            images of shape ``(3, 28, 28)``.

    Returns:
        ~chainer.datasets.TupleDataset or numpy.ndarray: The dataset.
    """
    preprocess = _retrieval.mnist_preprocessor(
        withlabel, ndim, scale, image_dtype, label_dtype, rgb_format
    )
    return preprocess(raw)
