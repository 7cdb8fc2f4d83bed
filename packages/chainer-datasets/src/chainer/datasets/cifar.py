"""CIFAR-10 and CIFAR-100: 32x32 colour images in 10 or 100 classes.

The getters read the publisher's ``*-python.tar.gz`` archives (checked
against the MD5s on https://www.cs.toronto.edu/~kriz/cifar.html) without
extracting them, and convert them once into Chainer's cache files
``pfnet/chainer/cifar/cifar-10.npz`` and ``cifar-100.npz``.

The batches inside the archives are pickles. Unpickling can run arbitrary
code, so they are read by :class:`_BatchUnpickler`, which builds only what a
CIFAR batch holds (containers, strings, numbers and uint8 arrays) and refuses
everything else.
"""

from __future__ import annotations

import numbers
import pickle
import tarfile
import typing
import zlib

import numpy

from chainer.datasets import _retrieval
from chainer.datasets import tuple_dataset

_DATASET_DIR = "pfnet/chainer/cifar"
_SIDE = 32
_PIXELS = 3 * _SIDE * _SIDE
# The largest real batch (CIFAR-100's ``train``) is about 160 MB; a member
# announcing far more is not a CIFAR batch and is not read into memory.
_MAX_MEMBER_BYTES = 1 << 30


class _Spec(typing.NamedTuple):
    title: str
    archive: str
    url: str
    md5: str | None
    folder: str
    train: tuple[str, ...]
    test: tuple[str, ...]
    label_key: bytes
    n_classes: int
    system_dirs: tuple[str, ...]


_SPECS = {
    "cifar-10": _Spec(
        title="CIFAR-10",
        archive="cifar-10-python.tar.gz",
        url="https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
        md5="c58f30108f718f92721af3b95e74349a",
        folder="cifar-10-batches-py",
        train=tuple(f"data_batch_{i}" for i in range(1, 6)),
        test=("test_batch",),
        label_key=b"labels",
        n_classes=10,
        system_dirs=("/usr/share/datasets/cifar-10",),
    ),
    "cifar-100": _Spec(
        title="CIFAR-100",
        archive="cifar-100-python.tar.gz",
        url="https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz",
        md5="eb9058c3a382ffc7106e4002c42a8d85",
        folder="cifar-100-python",
        train=("train",),
        test=("test",),
        # NOTE: Chainer's CIFAR-100 uses the 100 fine labels, not the 20
        # coarse superclasses.
        label_key=b"fine_labels",
        n_classes=100,
        system_dirs=("/usr/share/datasets/cifar-100",),
    ),
}


def get_cifar10(withlabel=True, ndim=3, scale=1.0, dtype=None):
    """Gets the CIFAR-10 dataset.

    `CIFAR-10 <https://www.cs.toronto.edu/~kriz/cifar.html>`_ is a set of
    small natural images: 50,000 for training and 10,000 for testing, each a
    32x32 RGB image of one of 10 classes (airplane, automobile, bird, cat,
    deer, dog, frog, horse, ship, truck). The archive is downloaded on the
    first call unless it is already in the dataset directory, checked
    against its publisher's MD5, and converted once into a cache file.

    Args:
        withlabel (bool): If ``True``, each dataset is a
            :class:`~chainer.datasets.TupleDataset` of images and labels;
            otherwise it is only the image array.
        ndim (int): Number of dimensions of each image: ``3`` gives shape
            ``(3, 32, 32)`` (channels, height, width) and ``1`` gives flat
            vectors of length 3072.
        scale (float): Pixel values are scaled to ``[0, scale]``.
        dtype: Data type of the images, a floating point type. ``None``
            uses ``chainer.config.dtype``.

    Returns:
        A tuple of two datasets, ``(train, test)``. Labels are ``int32``
        class indices in ``[0, 10)``.
    """
    return _get_cifar("cifar-10", withlabel, ndim, scale, dtype)


def get_cifar100(withlabel=True, ndim=3, scale=1.0, dtype=None):
    """Gets the CIFAR-100 dataset.

    `CIFAR-100 <https://www.cs.toronto.edu/~kriz/cifar.html>`_ is like
    CIFAR-10 with 100 classes: 50,000 training and 10,000 test images, each
    a 32x32 RGB image. The labels are the 100 fine classes (not the 20
    coarse superclasses), as in Chainer. The archive is downloaded on the
    first call unless it is already in the dataset directory, checked
    against its publisher's MD5, and converted once into a cache file.

    Args:
        withlabel (bool): If ``True``, each dataset is a
            :class:`~chainer.datasets.TupleDataset` of images and labels;
            otherwise it is only the image array.
        ndim (int): Number of dimensions of each image: ``3`` gives shape
            ``(3, 32, 32)`` (channels, height, width) and ``1`` gives flat
            vectors of length 3072.
        scale (float): Pixel values are scaled to ``[0, scale]``.
        dtype: Data type of the images, a floating point type. ``None``
            uses ``chainer.config.dtype``.

    Returns:
        A tuple of two datasets, ``(train, test)``. Labels are ``int32``
        class indices in ``[0, 100)``.
    """
    return _get_cifar("cifar-100", withlabel, ndim, scale, dtype)


def _get_cifar(name, withlabel, ndim, scale, dtype):
    # Arguments are checked before anything is downloaded.
    if isinstance(ndim, bool) or not isinstance(ndim, numbers.Integral):
        raise TypeError(f"invalid ndim for CIFAR dataset: {ndim!r} (expected 1 or 3)")
    if ndim not in (1, 3):
        raise ValueError(f"invalid ndim for CIFAR dataset: {ndim!r} (expected 1 or 3)")
    scale = _retrieval.check_scale(scale)
    dtype = _retrieval.resolve_image_dtype(dtype)
    spec = _SPECS[name]
    raw = _retrieval.cache_arrays(
        _DATASET_DIR,
        f"{name}.npz",
        lambda: _read_archive(spec),
        lambda arrays: _check_arrays(arrays, spec),
    )
    shape = (_PIXELS,) if ndim == 1 else (3, _SIDE, _SIDE)

    def preprocess(x, y):
        images = _retrieval.scale_pixels(x.reshape((-1, *shape)), scale, dtype)
        if not withlabel:
            return images
        return tuple_dataset.TupleDataset(images, y.astype(numpy.int32))

    return (
        preprocess(raw["train_x"], raw["train_y"]),
        preprocess(raw["test_x"], raw["test_y"]),
    )


def _check_arrays(arrays, spec):
    missing = {"train_x", "train_y", "test_x", "test_y"} - set(arrays)
    if missing:
        raise ValueError(f"arrays {sorted(missing)} are missing")
    for split in ("train", "test"):
        x, y = arrays[f"{split}_x"], arrays[f"{split}_y"]
        if x.ndim != 2 or x.shape[1] != _PIXELS or y.shape != x.shape[:1]:
            raise ValueError(
                f"unexpected shapes {split}_x {x.shape} and {split}_y {y.shape}"
            )
        if x.dtype != numpy.uint8 or y.dtype.kind not in "iu":
            raise ValueError(
                f"{split}_x is {x.dtype} and {split}_y is {y.dtype}, expected "
                "uint8 pixels and integer labels"
            )
        if y.size and not 0 <= y.min() <= y.max() < spec.n_classes:
            raise ValueError(f"{split}_y holds labels outside [0, {spec.n_classes})")


# ----------------------------------------------------------------- archive


def _read_archive(spec):
    path = _retrieval.find_file(
        _DATASET_DIR,
        spec.archive,
        (spec.url,),
        title=spec.title,
        md5=spec.md5,
        system_dirs=spec.system_dirs,
    )
    try:
        with tarfile.open(path, "r:gz") as archive:
            # Members are looked up by name and read as streams: nothing is
            # extracted, so member paths never reach the filesystem.
            members = {}
            for member in archive.getmembers():
                if member.isfile():
                    members[member.name.removeprefix("./")] = member
            train = [_read_batch(archive, members, path, spec, b) for b in spec.train]
            test = [_read_batch(archive, members, path, spec, b) for b in spec.test]
    except (tarfile.TarError, EOFError, zlib.error) as e:
        raise _retrieval.corrupt_file_error(
            path, f"it is not a complete tar.gz archive ({e})"
        ) from e
    except OSError as e:
        # gzip reports a damaged stream as a plain OSError ("Not a gzipped
        # file"); an OSError about the path itself says so by its filename.
        if e.filename is not None:
            raise
        raise _retrieval.corrupt_file_error(
            path, f"it is not a complete tar.gz archive ({e})"
        ) from e
    return {
        "train_x": numpy.concatenate([x for x, _ in train]),
        "train_y": numpy.concatenate([y for _, y in train]),
        "test_x": numpy.concatenate([x for x, _ in test]),
        "test_y": numpy.concatenate([y for _, y in test]),
    }


def _read_batch(archive, members, path, spec, batch):
    name = f"{spec.folder}/{batch}"
    member = members.get(name)
    if member is None:
        raise _retrieval.corrupt_file_error(
            path, f"it has no member {name!r}; is it the {spec.title} archive?"
        )
    if member.size > _MAX_MEMBER_BYTES:
        raise _retrieval.corrupt_file_error(
            path, f"its member {name!r} is {member.size} bytes, too large for a batch"
        )
    with archive.extractfile(member) as f:
        try:
            content = _BatchUnpickler(f).load()
        except _RefusedError as e:
            raise _RefusedError(
                f"{path}, member {name!r}, was not loaded: {e}. The archive is "
                "damaged or malicious."
            ) from None
        except (
            pickle.UnpicklingError,
            EOFError,
            ValueError,
            TypeError,
            IndexError,
            KeyError,
            AttributeError,
            RecursionError,
        ) as e:
            # A damaged pickle fails in the unpickler or in numpy's
            # reconstruction with any of these.
            raise _retrieval.corrupt_file_error(
                path,
                f"its member {name!r} is not a readable pickle "
                f"({type(e).__name__}: {e})",
            ) from e
    try:
        return _batch_arrays(content, spec)
    except _NotABatch as e:
        raise _retrieval.corrupt_file_error(
            path, f"its member {name!r} is not a {spec.title} batch: it {e}"
        ) from None


class _NotABatch(Exception):
    pass


def _batch_arrays(content, spec):
    def field(key):
        # The real batches were pickled by Python 2, so their keys are byte
        # strings; a batch re-pickled by Python 3 may have text keys.
        for k in (key, key.decode("ascii")):
            if k in content:
                return content[k]
        raise _NotABatch(f"has no {key.decode()!r} entry")

    if not isinstance(content, dict):
        raise _NotABatch(f"holds a {type(content).__name__}, expected a dict")
    data = field(b"data")
    if not isinstance(data, numpy.ndarray):
        raise _NotABatch(f"holds a {type(data).__name__} as data, expected an array")
    if data.dtype != numpy.uint8 or data.ndim != 2 or data.shape[1] != _PIXELS:
        raise _NotABatch(
            f"holds a {data.dtype} array of shape {data.shape} as data, expected "
            f"uint8 of shape (N, {_PIXELS})"
        )
    labels = field(spec.label_key)
    if not isinstance(labels, (list, numpy.ndarray)) or not all(
        isinstance(v, numbers.Integral) and 0 <= v < spec.n_classes for v in labels
    ):
        raise _NotABatch(
            f"has a {spec.label_key.decode()!r} entry that is not a list of class "
            f"indices in [0, {spec.n_classes})"
        )
    if len(labels) != len(data):
        raise _NotABatch(f"holds {len(data)} images but {len(labels)} labels")
    return numpy.ascontiguousarray(data), numpy.asarray(labels, dtype=numpy.uint8)


# ---------------------------------------------------------------- unpickler


class _RefusedError(pickle.UnpicklingError):
    """A batch pickle asks for something a CIFAR batch never contains."""


def _latin1_encode(text, encoding="latin1"):
    # Python 3 writes bytes into protocol 2 pickles as
    # _codecs.encode(text, 'latin1'); allow exactly that use.
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise _RefusedError(
            f"it calls _codecs.encode on a {type(text).__name__} with encoding "
            f"{encoding!r}, which a CIFAR batch never contains (only latin1 "
            "byte strings)"
        )
    return text.encode("latin1")


# numpy moved ``_reconstruct`` from numpy.core to numpy._core in 2.0; the
# array's own __reduce__ hands back the function wherever it lives.
_RECONSTRUCT = numpy.ndarray.__reduce__(numpy.zeros(0))[0]

_ALLOWED_GLOBALS = {
    # Written by numpy 1, and by the Python 2 numpy that made the real archives.
    ("numpy.core.multiarray", "_reconstruct"): _RECONSTRUCT,
    # Written by numpy 2 when a batch is re-pickled today.
    ("numpy._core.multiarray", "_reconstruct"): _RECONSTRUCT,
    ("numpy", "ndarray"): numpy.ndarray,
    ("numpy", "dtype"): numpy.dtype,
    ("_codecs", "encode"): _latin1_encode,
}


class _BatchUnpickler(pickle.Unpickler):
    """Unpickler that builds only what a CIFAR batch holds.

    Builtin containers, strings and numbers need no globals; of the globals,
    only numpy's array reconstruction (``_reconstruct``, ``ndarray``,
    ``dtype``) and Python 3's latin1 byte strings are resolved. Any other
    global, or a persistent id, raises :class:`pickle.UnpicklingError`
    before anything is called.
    """

    def __init__(self, file):
        # encoding='bytes' keeps Python 2 byte strings (keys, pixel data)
        # as bytes, the way the real batches must be read.
        super().__init__(file, encoding="bytes")

    def find_class(self, module, name):
        allowed = _ALLOWED_GLOBALS.get((module, name))
        if allowed is None:
            raise _RefusedError(
                f"it refers to the global {module}.{name}, which a CIFAR batch "
                "never contains"
            )
        return allowed

    def persistent_load(self, pid):
        raise _RefusedError(
            "it holds a persistent id, which a CIFAR batch never contains"
        )
