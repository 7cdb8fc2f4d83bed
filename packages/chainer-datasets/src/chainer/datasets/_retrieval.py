"""Machinery shared by the dataset getters: find, download, verify, convert.

A getter asks :func:`find_file` for each raw file it needs. The file is
looked for, in order, in ``<dataset root>/<dataset dir>/`` (where a user may
put it by hand), in the system data directories the getter names (such as
``/usr/share/datasets/fashion-mnist``, filled by a Linux package), and in
the download cache, downloading it from the getter's URLs (first one that
works) through :func:`chainer.dataset.download.cached_download`, which locks,
writes atomically and checks the publisher's digest. When all of that fails,
one :class:`DatasetNotFoundError` lists every place looked at and what to do.

The raw files are converted once into a ``.npz`` file by :func:`cache_arrays`
(atomic: an interrupted conversion leaves no file), and later calls only
load that file, without pickles.

The MNIST family (MNIST, Fashion-MNIST, Kuzushiji-MNIST) shares the idx
reader :func:`read_idx`, :func:`mnist_arrays` and :func:`mnist_preprocessor`.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.client
import math
import numbers
import os
import struct
import warnings
import zipfile
import zlib

import numpy

import chainer
from chainer.dataset import download
from chainer.datasets import tuple_dataset

_CHUNK = 1 << 20


class DatasetNotFoundError(OSError):
    """A raw dataset file is neither on this machine nor downloadable."""


class ChecksumError(ValueError):
    """A downloaded file does not match the digest its publisher gives."""


# ---------------------------------------------------------------- finding


def file_digest(path, kind, *, gunzip=False):
    """Computes the hex digest of a file, reading it in chunks.

    Args:
        path (str): Path to the file.
        kind (str): Hash name, e.g. ``'md5'`` or ``'sha256'``.
        gunzip (bool): If ``True``, the digest is of the decompressed
            content of a gzip file.

    Returns:
        str: The lowercase hex digest.
    """
    hasher = hashlib.new(kind, usedforsecurity=False)
    opener = gzip.open if gunzip else open
    with opener(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()


def _digest_problem(path, md5, sha256):
    for kind, expected in (("md5", md5), ("sha256", sha256)):
        if expected is None:
            continue
        actual = file_digest(path, kind)
        if actual != expected.lower():
            return f"its {kind} is {actual}, expected {expected.lower()}"
    return None


def find_file(
    dataset_dir,
    filename,
    urls,
    *,
    title,
    md5=None,
    sha256=None,
    system_dirs=(),
    check_local=None,
    hint=None,
):
    """Finds a raw dataset file on this machine, or downloads it.

    Places, in order: ``<dataset root>/<dataset_dir>/<filename>``, then
    ``<d>/<filename>`` for each ``d`` in ``system_dirs``, then the download
    cache, downloading from each URL in turn until one works. A local copy
    that fails its check is skipped with a warning. A download that does
    not match ``md5``/``sha256`` is deleted and raises :class:`ChecksumError`
    at once (a server that serves a damaged file is not papered over).

    Args:
        dataset_dir (str): Directory of the dataset relative to the dataset
            root, e.g. ``'pfnet/chainer/mnist'``.
        filename (str): Name of the raw file.
        urls (sequence of str): Where to download the file from, best first.
        title (str): Name of the dataset for messages, e.g. ``'MNIST'``.
        md5 (str): The publisher's MD5 of the file, or ``None``.
        sha256 (str): The publisher's SHA-256 of the file, or ``None``.
        system_dirs (sequence of str): System data directories to look in.
        check_local: Function that takes the path of a local copy and returns
            ``None`` if it is good, or a string saying what is wrong. By
            default local copies are checked against ``md5``/``sha256``.
        hint (str): An extra line for the not-found error, e.g. the system
            package that provides the dataset.

    Returns:
        str: Path to the file.
    """
    root = download.get_dataset_root()
    own_path = os.path.join(root, dataset_dir, filename)
    local_paths = [own_path] + [os.path.join(d, filename) for d in system_dirs]
    looked = []
    for path in local_paths:
        if not os.path.isfile(path):
            looked.append(f"{path}: not found")
            continue
        try:
            if check_local is not None:
                problem = check_local(path)
            else:
                problem = _digest_problem(path, md5, sha256)
        except (OSError, EOFError, zlib.error) as e:
            problem = f"it cannot be read ({e})"
        if problem is None:
            return path
        warnings.warn(f"{title}: skipping {path}: {problem}", UserWarning, stacklevel=2)
        looked.append(f"{path}: skipped, {problem}")

    last_error = None
    for url in urls:
        try:
            return download.cached_download(url, md5=md5, sha256=sha256)
        except ValueError as e:
            if "checksum mismatch" not in str(e):
                raise
            raise ChecksumError(
                f"{title}: the file downloaded from {url} does not match the "
                f"checksum its publisher gives ({e}). The download was deleted "
                f"and nothing was cached. The server may hold a damaged or "
                f"altered copy: try again later, or get {filename} elsewhere, "
                f"check it, and put it at {own_path}."
            ) from e
        except (OSError, http.client.HTTPException) as e:
            # HTTPException: the server answered something that is not HTTP.
            looked.append(f"{url}: {type(e).__name__}: {e}")
            last_error = e

    lines = [f"{title}: cannot find or download {filename}. Looked at:"]
    lines += [f"  - {place}" for place in looked]
    lines.append(
        "Connect this machine to the network and call again, or download "
        + (f"{urls[0]}" if urls else filename)
        + f" yourself and put it at {own_path}."
    )
    lines.append(
        f"The dataset root is {root} (set CHAINER_DATASET_ROOT or call "
        "chainer.dataset.set_dataset_root to use another)."
    )
    if hint:
        lines.append(hint)
    raise DatasetNotFoundError("\n".join(lines)) from last_error


def corrupt_file_error(path, problem):
    """Makes the error for a raw file that cannot be parsed.

    If ``path`` is a download (in the dataset root's download cache), the
    bad copy is deleted so that the next call downloads it anew.

    Args:
        path (str): Path to the bad file.
        problem (str): What is wrong with it.

    Returns:
        ValueError: The error to raise; its message names the file.
    """
    cache_dir = os.path.join(os.path.abspath(download.get_dataset_root()), "_dl_cache")
    message = f"{path} is corrupt: {problem}."
    if os.path.dirname(os.path.abspath(path)) == cache_dir:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        message += " The downloaded copy was deleted; the next call downloads it again."
    else:
        message += " Replace or remove that file."
    return ValueError(message)


# -------------------------------------------------------------- conversion


class _UnreadableCache(Exception):
    pass


def cache_arrays(dataset_dir, name, creator, check=None):
    """Converts raw files once into a ``.npz`` file, or loads that file.

    The file is ``<dataset root>/<dataset_dir>/<name>``, written with
    :func:`numpy.savez_compressed` through
    :func:`chainer.dataset.download.cache_or_load_file` (atomic). It is read
    with ``allow_pickle=False``. A cache file that cannot be read, or that
    ``check`` rejects, is deleted with a warning and made again.

    Args:
        dataset_dir (str): Directory of the dataset relative to the root.
        name (str): File name of the cache, e.g. ``'train.npz'``.
        creator: Function of no arguments that returns a dict of arrays.
        check: Function that takes the loaded dict and raises
            :class:`ValueError` if it does not hold what the getter expects.

    Returns:
        dict: Names to :class:`numpy.ndarray`.
    """
    path = os.path.join(download.get_dataset_directory(dataset_dir), name)

    def create(temp_path):
        arrays = creator()
        numpy.savez_compressed(temp_path, **arrays)
        return arrays

    def load(cache_path):
        try:
            # Our own handle: numpy.load leaks its file when the zip is bad.
            with (
                open(cache_path, "rb") as f,
                numpy.load(f, allow_pickle=False) as npz,
            ):
                arrays = {key: npz[key] for key in npz.files}
            if check is not None:
                check(arrays)
        except (
            OSError,
            TypeError,
            ValueError,
            EOFError,
            KeyError,
            zipfile.BadZipFile,
        ) as e:
            raise _UnreadableCache(str(e)) from e
        except zlib.error as e:
            raise _UnreadableCache(f"zlib: {e}") from e
        return arrays

    try:
        return download.cache_or_load_file(path, create, load)
    except _UnreadableCache as e:
        warnings.warn(
            f"the dataset cache {path} is unreadable ({e}); it is made again",
            UserWarning,
            stacklevel=2,
        )
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
    try:
        return download.cache_or_load_file(path, create, load)
    except _UnreadableCache as e:
        # Only if another process wrote a bad file again meanwhile.
        raise ValueError(f"the dataset cache {path} is unreadable: {e}") from None


# ------------------------------------------------------------- arguments


def resolve_image_dtype(dtype):
    """Resolves the dtype of image arrays as Chainer's getters do.

    Args:
        dtype: A floating point dtype, or ``None`` for
            ``chainer.config.dtype`` (see :func:`chainer.get_dtype`).

    Returns:
        numpy.dtype: The resolved dtype.
    """
    try:
        resolved = chainer.get_dtype(dtype)
    except TypeError as e:
        raise TypeError(f"dtype must be a numpy dtype, got {dtype!r}") from e
    if resolved.kind != "f":
        raise TypeError(
            "dtype must be a floating point type (pixels are scaled to "
            f"[0, scale]), got {resolved}"
        )
    return resolved


def resolve_label_dtype(label_dtype):
    """Checks the dtype of label arrays.

    Args:
        label_dtype: An integer or floating point dtype.

    Returns:
        numpy.dtype: The dtype.
    """
    try:
        resolved = numpy.dtype(label_dtype)
    except TypeError as e:
        raise TypeError(
            f"label_dtype must be a numpy dtype, got {label_dtype!r}"
        ) from e
    if resolved.kind not in "iuf":
        raise TypeError(f"label_dtype must be a numeric type, got {resolved}")
    return resolved


def check_scale(scale):
    """Checks the pixel scale argument.

    Args:
        scale (float): Upper bound of the pixel values.

    Returns:
        float: ``scale`` as a float.
    """
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale must be a real number, got {scale!r}")
    if not math.isfinite(scale):
        raise ValueError(f"scale must be finite, got {scale!r}")
    return float(scale)


def scale_pixels(images, scale, dtype):
    """Converts 8-bit pixels to ``dtype`` with values in ``[0, scale]``.

    Args:
        images (numpy.ndarray): Pixels in ``[0, 255]``.
        scale (float): Value that 255 maps to.
        dtype (numpy.dtype): Floating point dtype of the result.

    Returns:
        numpy.ndarray: A new C-contiguous array, ``images / 255 * scale``.
    """
    result = images.astype(dtype, order="C")
    result *= scale / 255.0
    return result


# ------------------------------------------------------------ MNIST family

_IDX_TYPES = {
    0x08: numpy.dtype("u1"),
    0x09: numpy.dtype("i1"),
    0x0B: numpy.dtype(">i2"),
    0x0C: numpy.dtype(">i4"),
    0x0D: numpy.dtype(">f4"),
    0x0E: numpy.dtype(">f8"),
}
MNIST_SIDE = 28
MNIST_FILES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}


def read_idx(path):
    """Reads a gzip-compressed file in the idx format of MNIST.

    The header is checked strictly: two zero bytes, a known type code, the
    number of dimensions, the dimensions (big-endian), then exactly as many
    values as they imply.

    Args:
        path (str): Path to the ``.gz`` file.

    Returns:
        numpy.ndarray: The array, in native byte order.
    """
    try:
        with gzip.open(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError, zlib.error) as e:
        raise corrupt_file_error(path, f"it is not a complete gzip file ({e})") from e
    if len(data) < 4:
        raise corrupt_file_error(path, f"it holds {len(data)} bytes, no idx header")
    (magic,) = struct.unpack(">I", data[:4])
    type_code, ndim = data[2], data[3]
    if data[:2] != b"\0\0" or type_code not in _IDX_TYPES or ndim == 0:
        raise corrupt_file_error(path, f"bad idx magic number 0x{magic:08x}")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise corrupt_file_error(path, "its idx header is truncated")
    shape = struct.unpack(f">{ndim}I", data[4:header])
    dtype = _IDX_TYPES[type_code]
    expected = math.prod(shape) * dtype.itemsize
    if len(data) - header != expected:
        raise corrupt_file_error(
            path,
            f"its header gives shape {shape} ({expected} bytes of data) but "
            f"{len(data) - header} bytes follow",
        )
    array = numpy.frombuffer(data, dtype, offset=header).reshape(shape)
    return array.astype(dtype.newbyteorder("="), copy=False)


def mnist_arrays(images_path, labels_path):
    """Reads a pair of MNIST-style idx files into Chainer's cache layout.

    Args:
        images_path (str): Path to the images file (``*-idx3-ubyte.gz``).
        labels_path (str): Path to the labels file (``*-idx1-ubyte.gz``).

    Returns:
        dict: ``'x'``: uint8 array of shape ``(N, 784)``; ``'y'``: uint8
        array of shape ``(N,)``.
    """
    images = read_idx(images_path)
    labels = read_idx(labels_path)
    if images.dtype != numpy.uint8 or images.shape[1:] != (MNIST_SIDE, MNIST_SIDE):
        raise corrupt_file_error(
            images_path,
            f"it holds {images.dtype} values of shape {images.shape}, expected "
            f"uint8 images of shape (N, {MNIST_SIDE}, {MNIST_SIDE})",
        )
    if labels.dtype != numpy.uint8 or labels.ndim != 1:
        raise corrupt_file_error(
            labels_path,
            f"it holds {labels.dtype} values of shape {labels.shape}, expected "
            "uint8 labels of shape (N,)",
        )
    if len(images) != len(labels):
        raise ValueError(
            f"{images_path} holds {len(images)} images but {labels_path} holds "
            f"{len(labels)} labels: they are not a pair"
        )
    return {"x": images.reshape(len(images), -1), "y": labels}


def load_mnist_split(
    split,
    dataset_dir,
    base_urls,
    *,
    title,
    system_dirs=(),
    md5s=None,
    check_local=None,
    hint=None,
):
    """Gets one split of an MNIST-style dataset, converted once and cached.

    Args:
        split (str): ``'train'`` or ``'test'``.
        dataset_dir (str): Directory of the dataset relative to the root;
            the cache is ``<split>.npz`` there.
        base_urls (sequence of str): URLs of directories holding the four
            files (see :data:`MNIST_FILES`), best first.
        title (str): Name of the dataset for messages.
        system_dirs (sequence of str): System data directories to look in.
        md5s (dict): The publisher's MD5 of each file name, if known.
        check_local: Function ``(filename, path)`` checking a local copy, as
            ``check_local`` of :func:`find_file`.
        hint (str): An extra line for the not-found error.

    Returns:
        dict: ``'x'``: uint8 array ``(N, 784)``; ``'y'``: uint8 array ``(N,)``.
    """

    def find(filename):
        return find_file(
            dataset_dir,
            filename,
            [base + filename for base in base_urls],
            title=title,
            md5=(md5s or {}).get(filename),
            system_dirs=system_dirs,
            check_local=None
            if check_local is None
            else functools.partial(check_local, filename),
            hint=hint,
        )

    def create():
        return mnist_arrays(*(find(filename) for filename in MNIST_FILES[split]))

    return cache_arrays(dataset_dir, f"{split}.npz", create, check_mnist_arrays)


def check_mnist_arrays(arrays):
    """Checks a loaded MNIST-style cache (as written by Chainer or by us).

    Args:
        arrays (dict): The loaded ``.npz`` content.
    """
    x, y = arrays.get("x"), arrays.get("y")
    if x is None or y is None:
        raise ValueError(f"expected arrays 'x' and 'y', found {sorted(arrays)}")
    if x.ndim != 2 or x.shape[1] != MNIST_SIDE * MNIST_SIDE or y.shape != x.shape[:1]:
        raise ValueError(f"unexpected shapes x {x.shape} and y {y.shape}")
    if x.dtype != numpy.uint8:
        raise ValueError(f"expected uint8 pixels, found {x.dtype}")


def mnist_preprocessor(withlabel, ndim, scale, dtype, label_dtype, rgb_format):
    """Checks a getter's arguments and returns the conversion they ask for.

    Arguments are checked here, before anything is downloaded.

    Args:
        withlabel (bool): Return :class:`~chainer.datasets.TupleDataset` of
            images and labels if ``True``, else only the images.
        ndim (int): 1: images of shape ``(784,)``; 2: ``(28, 28)``; 3:
            ``(1, 28, 28)``, or ``(3, 28, 28)`` if ``rgb_format``.
        scale (float): Pixel values are scaled to ``[0, scale]``.
        dtype: Image dtype; ``None`` for ``chainer.config.dtype``.
        label_dtype: Label dtype.
        rgb_format (bool): With ``ndim=3``, repeat the gray channel three
            times. Ignored for other ``ndim``, as in Chainer.

    Returns:
        callable: Takes the cached dict (``'x'``, ``'y'``) and returns the
        dataset.
    """
    if isinstance(ndim, bool) or not isinstance(ndim, numbers.Integral):
        raise TypeError(f"ndim must be 1, 2 or 3, got {ndim!r}")
    if ndim not in (1, 2, 3):
        raise ValueError(f"ndim must be 1, 2 or 3, got {ndim!r}")
    scale = check_scale(scale)
    dtype = resolve_image_dtype(dtype)
    label_dtype = resolve_label_dtype(label_dtype)
    side = MNIST_SIDE
    shape = {1: (side * side,), 2: (side, side), 3: (1, side, side)}[int(ndim)]
    channels = 3 if ndim == 3 and rgb_format else 1

    def preprocess(raw):
        images = raw["x"].reshape((-1, *shape))
        if channels != 1:
            images = numpy.broadcast_to(images, (len(images), channels, side, side))
        images = scale_pixels(images, scale, dtype)
        if not withlabel:
            return images
        return tuple_dataset.TupleDataset(images, raw["y"].astype(label_dtype))

    return preprocess
