"""SVHN: the Street View House Numbers dataset, 32x32 colour digits.

The getter reads the publisher's MATLAB files (``{train,test,extra}_32x32.mat``)
with SciPy and converts each once into Chainer's cache files
``pfnet/chainer/svhn/{train,test,extra}.npz`` (keys ``x``: uint8 of shape
``(32, 32, 3, N)`` as in the ``.mat`` file, ``y``: uint8 labels 1 to 10).
"""

import numpy

from chainer.datasets import _retrieval
from chainer.datasets import tuple_dataset
from chainer.utils import install_hint

_TITLE = "SVHN"
_DATASET_DIR = "pfnet/chainer/svhn"
_BASE_URL = "http://ufldl.stanford.edu/housenumbers/"
# The publisher gives no checksums for the .mat files.
_MD5 = {}
_SYSTEM_DIRS = ("/usr/share/datasets/svhn",)
_SIDE = 32


def get_svhn(
    withlabel=True, scale=1.0, dtype=None, label_dtype=numpy.int32, add_extra=False
):
    """Gets the SVHN dataset.

    `The Street View House Numbers (SVHN) dataset
    <http://ufldl.stanford.edu/housenumbers/>`_ holds 32x32 RGB images of
    digits cropped from house numbers: 73,257 for training, 26,032 for
    testing and 531,131 extra, easier ones. Labels are the digits 0 to 9
    (the files store the digit 0 as label 10; it is mapped back to 0, as in
    Chainer). Reading the files needs SciPy
    (``pip install 'chainer-datasets[svhn]'``); they are downloaded on the
    first call unless they are already in the dataset directory, and
    converted once into cache files.

    Args:
        withlabel (bool): If ``True``, each dataset is a
            :class:`~chainer.datasets.TupleDataset` of images and labels;
            otherwise it is only the image array.
        scale (float): Pixel values are scaled to ``[0, scale]``.
        dtype: Data type of the images, a floating point type. ``None``
            uses ``chainer.config.dtype``.
        label_dtype: Data type of the labels.
        add_extra (bool): If ``True``, the extra set is returned too.

    Returns:
        A tuple ``(train, test)``, or ``(train, test, extra)`` if
        ``add_extra`` is ``True``. Images have shape ``(3, 32, 32)``.
    """
    # Arguments are checked before anything is downloaded.
    scale = _retrieval.check_scale(scale)
    dtype = _retrieval.resolve_image_dtype(dtype)
    label_dtype = _retrieval.resolve_label_dtype(label_dtype)
    splits = ("train", "test", "extra") if add_extra else ("train", "test")

    def preprocess(raw):
        # (H, W, C, N) in the MATLAB file -> (N, C, H, W).
        images = _retrieval.scale_pixels(raw["x"].transpose(3, 2, 0, 1), scale, dtype)
        if not withlabel:
            return images
        labels = raw["y"].reshape(-1).astype(label_dtype)
        # The files label the digit 0 as 10.
        labels[labels == 10] = 0
        return tuple_dataset.TupleDataset(images, labels)

    return tuple(preprocess(_retrieve(split)) for split in splits)


def _retrieve(split):
    return _retrieval.cache_arrays(
        _DATASET_DIR, f"{split}.npz", lambda: _read_mat(split), _check_arrays
    )


def _check_arrays(arrays):
    x, y = arrays.get("x"), arrays.get("y")
    if x is None or y is None:
        raise ValueError(f"expected arrays 'x' and 'y', found {sorted(arrays)}")
    if x.ndim != 4 or x.shape[:3] != (_SIDE, _SIDE, 3) or y.size != x.shape[3]:
        raise ValueError(f"unexpected shapes x {x.shape} and y {y.shape}")
    if x.dtype != numpy.uint8 or y.dtype.kind not in "iu":
        raise ValueError(
            f"x is {x.dtype} and y is {y.dtype}, expected uint8 pixels and "
            "integer labels"
        )


def _import_scipy_io():
    try:
        from scipy import io
    except ImportError as e:
        raise RuntimeError(
            "get_svhn reads SVHN's MATLAB files with SciPy, which is not "
            f"installed ({e}). Install it with: pip install scipy; or with "
            "chainer-datasets' extra svhn: "
            f"{install_hint.install_hint('chainer-datasets', 'svhn')}"
        ) from e
    return io


def _read_mat(split):
    # SciPy is checked before a large file is downloaded for nothing.
    io = _import_scipy_io()
    filename = f"{split}_32x32.mat"
    path = _retrieval.find_file(
        _DATASET_DIR,
        filename,
        (_BASE_URL + filename,),
        title=_TITLE,
        md5=_MD5.get(filename),
        system_dirs=_SYSTEM_DIRS,
    )
    try:
        # NOTE: loadmat builds numbers, strings and arrays only; it cannot run
        # code from the file, unlike a pickle.
        content = io.loadmat(path, variable_names=("X", "y"))
    except (
        io.matlab.MatReadError,
        ValueError,
        TypeError,
        OSError,
        EOFError,
        NotImplementedError,
    ) as e:
        # A damaged file fails in SciPy's reader with any of these.
        raise _retrieval.corrupt_file_error(
            path, f"it is not a readable MATLAB file ({type(e).__name__}: {e})"
        ) from e
    x, y = content.get("X"), content.get("y")
    if x is None or y is None:
        raise _retrieval.corrupt_file_error(
            path, "it lacks the variables 'X' (images) and 'y' (labels)"
        )
    if x.ndim != 4 or x.shape[:3] != (_SIDE, _SIDE, 3):
        raise _retrieval.corrupt_file_error(
            path, f"its images 'X' have shape {x.shape}, expected (32, 32, 3, N)"
        )
    if y.size != x.shape[3]:
        raise _retrieval.corrupt_file_error(
            path, f"it holds {x.shape[3]} images but {y.size} labels"
        )
    for name, array, high in (("pixels", x, 255), ("labels", y, 10)):
        if array.dtype.kind not in "iuf" or (
            array.size
            and (
                array.min() < 0
                or array.max() > high
                or (array.dtype.kind == "f" and not numpy.all(array == array // 1))
            )
        ):
            raise _retrieval.corrupt_file_error(
                path, f"its {name} are not integers in [0, {high}]"
            )
    return {
        "x": x.astype(numpy.uint8, copy=False),
        "y": y.reshape(-1, 1).astype(numpy.uint8, copy=False),
    }
