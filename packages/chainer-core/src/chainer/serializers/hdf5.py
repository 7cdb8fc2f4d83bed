"""Serialization to and from HDF5 files (needs the optional ``h5py``)."""

from __future__ import annotations

import os

import numpy

from chainer import backend
from chainer import serializer
from chainer import variable
from chainer.serializers import _common
from chainer.utils import install_hint


def _h5py():
    # Imported on first use: h5py is optional and slow to import.
    try:
        import h5py
    except ImportError as exc:
        raise RuntimeError(
            "HDF5 serialization needs h5py, which is not installed: run "
            "pip install h5py (the package of chainer-core's extra hdf5; or "
            f"{install_hint.install_hint('chainer-core', 'hdf5')})"
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


class HDF5Deserializer(_common.TwoPassDeserializer):
    """Deserializer for the HDF5 format.

    Only plain datasets of numbers, bools or strings are read. Links other
    than the plain (hard) ones, datasets stored in external files and
    virtual datasets are refused, so loading never reads another file. Each
    dataset's shape and dtype are checked against the target before its data
    is read, and :meth:`load` is all-or-nothing (see :func:`load_hdf5`).

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
        # Set on the deserializers of the two passes of load().
        self._mode = None
        self._cache = None

    def __getitem__(self, key):
        """Returns the deserializer of the child group named ``key``."""
        group = self.group
        path = self._path.rstrip("/") + "/" + key.strip("/")
        child_group = None if group is None else self._resolve(key)
        child = HDF5Deserializer(child_group, strict=self.strict)
        child._path = path
        child._source = self._source
        child._mode = self._mode
        child._cache = self._cache
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
            The loaded value, or ``None`` when ``None`` was saved (an error
            if ``value`` holds an array).
        """
        path = self._path.rstrip("/") + "/" + key
        dataset = None if self.group is None else self._resolve(key)
        if dataset is None:
            if not self.strict:
                return value
            raise KeyError(f"{path!r} is not found in {self._source}")
        return self._entry(path, value, lambda: self._open_entry(dataset))

    def _pass(self, mode, cache):
        d = HDF5Deserializer(self.group, strict=self.strict)
        d._path = self._path
        d._source = self._source
        d._mode = mode
        d._cache = cache
        return d

    def _resolve(self, key):
        # Each link on the way is looked at itself, not at what it points to:
        # following a soft or external link could read another file.
        h5py = _h5py()
        node = self.group
        path = self._path.rstrip("/")
        for name in key.strip("/").split("/"):
            path += "/" + name
            if not isinstance(node, h5py.Group):
                return None
            link = node.get(name, getlink=True)
            if link is None:
                return None
            if not isinstance(link, h5py.HardLink):
                raise ValueError(
                    f"{path!r} in {self._source} is {_describe_link(h5py, link)}; "
                    "only plain groups and datasets are loaded, and links are "
                    "never followed"
                )
            node = node[name]
        return node

    def _open_entry(self, dataset):
        h5py = _h5py()
        name = dataset.name
        source = self._source
        if not isinstance(dataset, h5py.Dataset):
            raise ValueError(f"{name!r} in {source} is a group, not a dataset")
        if dataset.is_virtual:
            raise ValueError(
                f"{name!r} in {source} is a virtual dataset, which maps data of "
                "other datasets or files; only plain datasets are loaded"
            )
        if dataset.external:
            files = ", ".join(repr(entry[0]) for entry in dataset.external)
            raise ValueError(
                f"{name!r} in {source} keeps its data in external files "
                f"({files}); only datasets stored in the file itself are loaded"
            )
        if dataset.shape is None:
            return None
        shape = tuple(dataset.shape)
        if h5py.check_string_dtype(dataset.dtype) is not None:

            def read_string():
                try:
                    return numpy.asarray(dataset.asstr()[()], dtype=str)
                except OSError as exc:
                    raise OSError(f"cannot read {name!r} from {source}: {exc}") from exc

            return shape, numpy.dtype(str), read_string
        dtype = dataset.dtype
        _common.check_dtype(name, dtype, source)

        def read():
            arr = _common.allocate(name, shape, dtype, source).reshape(shape)
            try:
                if arr.size:
                    dataset.read_direct(arr)
            except OSError as exc:
                # Still an OSError, as h5py raises for damaged data: snapshot
                # autoload skips such a file.
                raise OSError(
                    f"cannot read {name!r} from {source}: the file is corrupted ({exc})"
                ) from exc
            return arr

        return shape, dtype, read


def _describe_link(h5py, link):
    if isinstance(link, h5py.ExternalLink):
        return f"an external link to '{link.path}' in file '{link.filename}'"
    if isinstance(link, h5py.SoftLink):
        return f"a soft link to '{link.path}'"
    return "a link of an unknown kind"


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

    Loading is all-or-nothing: every dataset ``obj`` asks for is read and
    checked (shape and dtype against the target before the data is read,
    numbers or strings only, no ``None`` where the target holds an array)
    before anything is assigned, and if anything fails ``obj`` is left as it
    was. The file is the only one read: external links, soft links,
    datasets with external storage and virtual datasets are refused.

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


def __getattr__(name):
    # ``_available`` (Chainer's flag: whether h5py can be imported) is answered
    # on access, so ``import chainer.serializers`` does not import h5py.
    if name == "_available":
        try:
            _h5py()
        except RuntimeError:
            return False
        return True
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
