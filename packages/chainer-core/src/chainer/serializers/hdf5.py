"""Serialization to and from HDF5 files (needs the optional ``h5py``)."""

from __future__ import annotations

import os

import numpy

from chainer import backend
from chainer import serializer
from chainer import variable
from chainer.serializers import _common


def _h5py():
    # Imported on first use: h5py is optional and slow to import.
    try:
        import h5py
    except ImportError as exc:
        raise RuntimeError(
            "HDF5 serialization needs h5py, which is not installed: run "
            "`pip install chainer-core[hdf5]` (or `pip install h5py`)"
        ) from exc
    return h5py


def _file_name(group):
    try:
        return f"'{group.file.filename}'"
    except (AttributeError, ValueError):
        return "the HDF5 file"


class HDF5Serializer(serializer.Serializer):
    """Serializer for the HDF5 format.

    Each entry becomes a dataset of ``group`` (children become subgroups).
    ``None`` is written as an empty dataset.

    Args:
        group (h5py.Group): The group (or open file) to write into.
        compression (int): Gzip level 0-9 for datasets of more than one
            element.
    """

    def __init__(self, group, compression=4):
        h5py = _h5py()
        if not isinstance(group, h5py.Group):
            raise TypeError(
                f"group must be an h5py.Group or h5py.File, not {type(group).__name__}"
            )
        if compression is not None and compression not in range(10):
            raise ValueError(
                f"compression must be a gzip level from 0 to 9, not {compression!r}"
            )
        self.group = group
        self.compression = compression

    def __getitem__(self, key):
        """Returns the serializer of the child group named ``key``."""
        return HDF5Serializer(self.group.require_group(key), self.compression)

    def __call__(self, key, value):
        """Writes ``value`` (array, Variable, scalar, str or None) as dataset ``key``.

        Args:
            key (str): Name of the dataset.
            value: Value to save; arrays on other devices are copied to host.

        Returns:
            ``value`` itself.
        """
        h5py = _h5py()
        ret = value
        if isinstance(value, variable.Variable):
            value = value.array
        compression = None
        if value is None:
            data = h5py.Empty("f")
        elif isinstance(value, str):
            data = numpy.array(value, dtype=h5py.string_dtype())
        else:
            if isinstance(value, numpy.ndarray):
                data = value
            elif isinstance(value, (bytes, int, float, complex, numpy.generic)):
                data = numpy.asarray(value)
            else:
                data = numpy.asarray(backend.CpuDevice().send(value))
            if data.dtype.kind == "U":
                data = data.astype(h5py.string_dtype())
            elif data.dtype.hasobject:
                raise TypeError(
                    f"cannot serialize {key!r}: values of type "
                    f"{type(value).__name__} cannot be stored in HDF5"
                )
            if data.size > 1:
                compression = self.compression
        if key in self.group:
            del self.group[key]
        self.group.create_dataset(key, data=data, compression=compression)
        return ret


class HDF5Deserializer(serializer.Deserializer):
    """Deserializer for the HDF5 format.

    Args:
        group (h5py.Group): The group (or open file) to read from.
        strict (bool): If ``True``, a missing dataset raises ``KeyError``;
            otherwise the value is left as it is.
    """

    def __init__(self, group, strict=True):
        h5py = _h5py()
        if group is not None and not isinstance(group, h5py.Group):
            raise TypeError(
                f"group must be an h5py.Group or h5py.File, not {type(group).__name__}"
            )
        self.group = group
        self.strict = strict
        self._path = group.name if group is not None else ""
        self._source = _file_name(group) if group is not None else "the HDF5 file"

    def __getitem__(self, key):
        """Returns the deserializer of the child group named ``key``."""
        group = self.group
        child_group = group[key] if group is not None and key in group else None
        child = HDF5Deserializer(child_group, strict=self.strict)
        child._path = self._path.rstrip("/") + "/" + key.strip("/")
        child._source = self._source
        return child

    def __call__(self, key, value):
        """Loads dataset ``key`` into or according to ``value``.

        Args:
            key (str): Name of the dataset.
            value: An array or Variable to fill in place (an uninitialized
                Parameter is initialized with the stored shape), a scalar or
                str whose type the stored value is converted to, or ``None``
                to get the stored array itself.

        Returns:
            The loaded value, or ``None`` when ``None`` was saved.
        """
        h5py = _h5py()
        group = self.group
        if group is None or key not in group:
            if not self.strict:
                return value
            path = self._path.rstrip("/") + "/" + key
            raise KeyError(f"{path!r} is not found in {self._source}")
        dataset = group[key]
        if not isinstance(dataset, h5py.Dataset):
            raise ValueError(
                f"{dataset.name!r} in {self._source} is a group, not a dataset"
            )
        if dataset.shape is None:
            return None
        if h5py.check_string_dtype(dataset.dtype) is not None:
            stored = numpy.asarray(dataset.asstr()[()], dtype=str)
        else:
            stored = dataset[()]
        return _common.restore(dataset.name, stored, value, self._source)


def save_hdf5(filename, obj, compression=4):
    """Saves an object to a file in HDF5 format.

    Writing is atomic: a temporary file in the same directory is renamed over
    ``filename`` once complete.

    Args:
        filename (str or path-like): Target file name.
        obj: Object to save (anything with a ``serialize(serializer)`` method).
        compression (int): Gzip level 0-9 for datasets of more than one
            element.
    """
    h5py = _h5py()
    if not isinstance(filename, (str, bytes, os.PathLike)):
        raise TypeError(f"filename must be a path, not {type(filename).__name__}")
    with _common.atomic_path(filename) as tmp, h5py.File(tmp, "w") as f:
        HDF5Serializer(f, compression=compression).save(obj)


def load_hdf5(filename, obj):
    """Loads an object from a file in HDF5 format.

    Args:
        filename (str or path-like): Name of the file to read.
        obj: Object to load into; it must be constructed the same way as the
            saved one.
    """
    h5py = _h5py()
    source = _common.describe(filename)
    try:
        f = h5py.File(filename, "r")
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ValueError(f"{source} is not a readable HDF5 file: {exc}") from exc
    with f:
        d = HDF5Deserializer(f)
        d._source = source
        d.load(obj)
