"""Datasets of image files, on disk or in zip archives, read with Pillow.

The module attribute ``available`` tells whether Pillow can be imported (the
datasets raise :class:`ImportError` naming it when it cannot).
"""

import bisect
import io
import itertools
import os
import threading
import zipfile

import numpy

import chainer
from chainer.dataset import dataset_mixin
from chainer.utils import install_hint


def _pillow_importable():
    try:
        from PIL import Image  # noqa: F401
    except ImportError:
        return False
    return True


def __getattr__(name):
    # ``available`` is computed at first use: importing Pillow takes time
    # that ``import chainer.datasets.image_dataset`` should not pay.
    if name == "available":
        value = _pillow_importable()
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _pil_image():
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError(
            "the image datasets read images with Pillow, which is not installed; "
            "install it with: pip install Pillow; or with chainer-datasets' "
            f"extra image: {install_hint.install_hint('chainer-datasets', 'image')}"
        ) from e
    return Image


def _read_image(source, dtype, what):
    """Reads an image as an array of shape (channels, height, width)."""
    image_module = _pil_image()
    try:
        with image_module.open(source) as image:
            array = numpy.asarray(image, dtype=dtype)
    except Exception as e:
        e.add_note(f"while reading the image {what}")
        raise
    if array.ndim == 2:
        # A greyscale image gets a channel axis of size one.
        array = array[:, :, None]
    return array.transpose(2, 0, 1)


def _path_argument(value):
    return isinstance(value, (str, os.PathLike))


def _read_pairs(path):
    """Reads "image-path label" lines; blank lines are skipped."""
    pairs = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            # The label is the last field, so image paths may hold spaces.
            fields = line.rsplit(None, 1)
            if len(fields) != 2:
                raise ValueError(
                    f"invalid format at line {number} in file {path!r}: expected "
                    f"'<image path> <integer label>', got {line!r}"
                )
            try:
                label = int(fields[1])
            except ValueError:
                raise ValueError(
                    f"invalid label at line {number} in file {path!r}: "
                    f"{fields[1]!r} is not an integer"
                ) from None
            pairs.append((fields[0], label))
    return pairs


class ImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of images read from files on access.

    Only the paths are kept; each access opens the file with Pillow and
    returns an array of shape ``(channels, height, width)``. A greyscale
    image has one channel; an RGB image three. Pixel values are not scaled
    (0 to 255 for 8-bit images).

    Args:
        paths (str or list of str): List of image paths, or the path of a
            text file that lists one image path per line.
        root (str): Root directory that relative image paths start from.
        dtype: Data type of the arrays (default: ``chainer.config.dtype``,
            float32 unless configured otherwise).
    """

    def __init__(self, paths, root=".", dtype=None):
        _pil_image()
        if _path_argument(paths):
            with open(paths) as f:
                paths = [line.strip() for line in f]
            paths = [path for path in paths if path]
        elif not hasattr(paths, "__len__") or not hasattr(paths, "__getitem__"):
            raise TypeError(
                "paths must be a list of image paths or the path of a file that "
                f"lists them, got {type(paths).__name__}"
            )
        self._paths = paths
        self._root = root
        self._dtype = chainer.get_dtype(dtype)

    def __len__(self):
        return len(self._paths)

    def get_example(self, i):
        """Returns the i-th image.

        Args:
            i (int): Index of the image.

        Returns:
            numpy.ndarray: The image, of shape ``(channels, height, width)``.
        """
        path = os.path.join(self._root, self._paths[i])
        return _read_image(path, self._dtype, repr(path))


class LabeledImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of labelled images read from files on access.

    Each example is a pair ``(image, label)``: the image as by
    :class:`ImageDataset`, of shape ``(channels, height, width)``, and the
    label as a 0-d array of ``label_dtype``.

    Args:
        pairs (str or list of tuples): List of pairs ``(path, label)`` with
            an integer label, or the path of a text file with one
            ``"<path> <label>"`` line per image (the label is the last
            whitespace-separated field; blank lines are skipped).
        root (str): Root directory that relative image paths start from.
        dtype: Data type of the images (default: ``chainer.config.dtype``).
        label_dtype: Data type of the labels.
    """

    def __init__(self, pairs, root=".", dtype=None, label_dtype=numpy.int32):
        _pil_image()
        if _path_argument(pairs):
            pairs = _read_pairs(pairs)
        elif not hasattr(pairs, "__len__") or not hasattr(pairs, "__getitem__"):
            raise TypeError(
                "pairs must be a list of (path, label) pairs or the path of a file "
                f"that lists them, got {type(pairs).__name__}"
            )
        self._pairs = pairs
        self._root = root
        self._dtype = chainer.get_dtype(dtype)
        self._label_dtype = numpy.dtype(label_dtype)

    def __len__(self):
        return len(self._pairs)

    def get_example(self, i):
        """Returns the i-th image and its label.

        Args:
            i (int): Index of the example.

        Returns:
            tuple: The image, of shape ``(channels, height, width)``, and the
            label, a 0-d array.
        """
        path, label = self._pairs[i]
        full_path = os.path.join(self._root, path)
        image = _read_image(full_path, self._dtype, repr(full_path))
        return image, numpy.array(label, dtype=self._label_dtype)


class ZippedImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of the images stored in a zip file, read on access.

    Every file of the archive (directories excepted) is an example, in the
    archive's order; an example can also be read by its member name, as in
    ``dataset['images/cat.png']``. Images come as by :class:`ImageDataset`,
    of shape ``(channels, height, width)``. The dataset can be read from
    threads, from forked processes (each process opens the archive again)
    and can be pickled.

    Args:
        zipfilename (str): Path of the zip file.
        dtype: Data type of the images (default: ``chainer.config.dtype``).
    """

    def __init__(self, zipfilename, dtype=None):
        _pil_image()
        self._zipfilename = os.fspath(zipfilename)
        self._dtype = chainer.get_dtype(dtype)
        self._lock = threading.Lock()
        self._zip = None
        self._pid = None
        self._paths = [name for name in self._archive().namelist() if name[-1:] != "/"]

    def _archive(self):
        # Call with the lock held, or before the dataset is shared. A forked
        # child reopens the archive: the inherited handle shares its file
        # offset with the parent.
        if self._zip is None or self._pid != os.getpid():
            try:
                self._zip = zipfile.ZipFile(self._zipfilename)
            except zipfile.BadZipFile as e:
                raise zipfile.BadZipFile(
                    f"{self._zipfilename!r} is not a readable zip file ({e})"
                ) from e
            self._pid = os.getpid()
        return self._zip

    def __len__(self):
        return len(self._paths)

    def get_example(self, i_or_filename):
        """Returns an image of the archive.

        Args:
            i_or_filename (int or str): Index of the image in the archive's
                order, or the member name of the image.

        Returns:
            numpy.ndarray: The image, of shape ``(channels, height, width)``.
        """
        if isinstance(i_or_filename, str):
            name = i_or_filename
        else:
            name = self._paths[i_or_filename]
        with self._lock:
            data = self._archive().read(name)
        return _read_image(
            io.BytesIO(data), self._dtype, f"{name!r} in {self._zipfilename!r}"
        )

    def close(self):
        """Closes the archive; it is opened again if the dataset is read."""
        with self._lock:
            archive, self._zip = self._zip, None
            if archive is not None:
                archive.close()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_zip"] = None
        del state["_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()


class MultiZippedImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of the images stored in several zip files, read on access.

    The images of the first archive come first, then those of the second,
    and so on (as :class:`ZippedImageDataset` orders each archive).

    Args:
        zipfilenames (list of str): Paths of the zip files.
        dtype: Data type of the images (default: ``chainer.config.dtype``).
    """

    def __init__(self, zipfilenames, dtype=None):
        if _path_argument(zipfilenames):
            raise TypeError(
                "zipfilenames must be a list of zip file paths, got the single "
                f"path {os.fspath(zipfilenames)!r}; use ZippedImageDataset for one"
            )
        self._zips = [ZippedImageDataset(name, dtype) for name in zipfilenames]
        self._ends = list(itertools.accumulate(len(z) for z in self._zips))

    def __len__(self):
        return self._ends[-1] if self._ends else 0

    def get_example(self, i):
        """Returns the i-th image.

        Args:
            i (int): Index of the image over all the archives; negative
                values count from the end.

        Returns:
            numpy.ndarray: The image, of shape ``(channels, height, width)``.
        """
        length = len(self)
        if i < 0:
            i += length
        if i < 0 or i >= length:
            raise IndexError(
                f"index {i - length if i < 0 else i} is out of range for "
                f"MultiZippedImageDataset of length {length}"
            )
        k = bisect.bisect_right(self._ends, i)
        start = self._ends[k - 1] if k else 0
        return self._zips[k].get_example(i - start)

    def close(self):
        """Closes the archives; they are opened again if the dataset is read."""
        for z in self._zips:
            z.close()


class LabeledZippedImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of labelled images stored in a zip file, read on access.

    Each example is a pair ``(image, label)`` as in
    :class:`LabeledImageDataset`; the label file names the images by their
    member names in the archive.

    Args:
        zipfilename (str): Path of the zip file.
        labelfilename (str): Path of a text file with one
            ``"<member name> <label>"`` line per example (blank lines are
            skipped).
        dtype: Data type of the images (default: ``chainer.config.dtype``).
        label_dtype: Data type of the labels.
    """

    def __init__(self, zipfilename, labelfilename, dtype=None, label_dtype=numpy.int32):
        self._zipped = ZippedImageDataset(zipfilename, dtype=dtype)
        self._pairs = _read_pairs(labelfilename)
        self._label_dtype = numpy.dtype(label_dtype)
        members = set(self._zipped._paths)
        for name, _ in self._pairs:
            if name not in members:
                raise ValueError(
                    f"the label file {os.fspath(labelfilename)!r} names {name!r}, "
                    f"which is not an image of {os.fspath(zipfilename)!r}"
                )

    def __len__(self):
        return len(self._pairs)

    def get_example(self, i):
        """Returns the i-th image and its label.

        Args:
            i (int): Index of the example (line order of the label file).

        Returns:
            tuple: The image, of shape ``(channels, height, width)``, and the
            label, a 0-d array.
        """
        name, label = self._pairs[i]
        image = self._zipped.get_example(name)
        return image, numpy.array(label, dtype=self._label_dtype)

    def close(self):
        """Closes the archive; it is opened again if the dataset is read."""
        self._zipped.close()
