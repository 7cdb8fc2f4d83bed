"""Serialization to and from NumPy NPZ archives."""

from __future__ import annotations

import errno
import math
import os
import re
import stat
import zipfile
import zlib

import numpy

from chainer import backend
from chainer import serializer
from chainer import variable
from chainer.serializers import _common

# ``None`` is kept as a 0-d array of this structured dtype: Chainer itself
# stores ``numpy.asarray(None)``, an object array that only unpickling can
# read, and this module never unpickles.
_NONE_DTYPE = numpy.dtype([("__chainer_none__", numpy.uint8)])

# What a damaged archive member raises while being read.
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError)

# Members are read in pieces of this many bytes.
_CHUNK = 1 << 20

# A stored None (ours or Chainer's pickled one) takes well under this.
_MAX_NONE_SIZE = 4096

# What extensions.snapshot() names a trainer snapshot by default.
_SNAPSHOT_NAME = re.compile(r"snapshot_iter_([0-9]+)")

# How many top-level names of a file a missing-key message lists.
_LISTED_NAMES = 6


class _EntryNotFound(KeyError):
    """``KeyError`` for a missing entry, whose message reads as written.

    A plain ``KeyError`` shows its message quoted (``str`` gives its
    ``repr``), which makes a sentence hard to read.
    """

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def _to_host(key, value):
    """Returns ``value`` as a host array that can be stored without pickling."""
    if value is None:
        return numpy.zeros((), dtype=_NONE_DTYPE)
    if isinstance(value, numpy.ndarray):
        arr = value
    elif isinstance(value, (str, bytes, int, float, complex, numpy.generic)):
        arr = numpy.asarray(value)
    elif backend.is_array_supported(value):
        arr = backend.CpuDevice().send(value)
    else:
        arr = numpy.asarray(value)
    if arr.dtype.hasobject:
        if arr.ndim == 0 and arr.item() is None:
            return numpy.zeros((), dtype=_NONE_DTYPE)
        raise TypeError(
            f"cannot serialize {key!r}: a value of type {type(value).__name__} "
            "becomes an object array, which NPZ can only hold by pickling"
        )
    return arr


class DictionarySerializer(serializer.Serializer):
    """Serializer for a dictionary of arrays.

    It collects every value into a flat dictionary whose keys are
    ``'/'``-separated paths (e.g. ``'predictor/l1/W'``); :func:`save_npz`
    writes that dictionary to an NPZ archive.

    Args:
        target (dict): The dictionary to write into; a new one if ``None``.
        path (str): Path prefix of the keys written by this serializer.

    Attributes:
        target (dict): The dictionary of serialized values.
        path (str): The key prefix.
    """

    def __init__(self, target=None, path=""):
        if target is None:
            target = {}
        if not hasattr(target, "__setitem__"):
            raise TypeError(
                "DictionarySerializer target must be a dict-like object, not "
                f"{type(target).__name__}"
            )
        if not isinstance(path, str):
            raise TypeError(f"path must be a str, not {type(path).__name__}")
        self.target = target
        self.path = path

    def __getitem__(self, key):
        """Returns the serializer of the child named ``key``."""
        key = key.strip("/")
        return DictionarySerializer(self.target, self.path + key + "/")

    def __call__(self, key, value):
        """Stores ``value`` (array, Variable, scalar, str or None) at ``key``.

        Args:
            key (str): Name of the entry.
            value: Value to save; arrays on other devices are copied to host.

        Returns:
            ``value`` itself.
        """
        ret = value
        if isinstance(value, variable.Variable):
            value = value.array
        name = self.path + key.lstrip("/")
        self.target[name] = _to_host(name, value)
        return ret


class NpzDeserializer(_common.TwoPassDeserializer):
    """Deserializer for an NPZ archive (or any mapping of names to arrays).

    Each entry's ``.npy`` header is checked against the target (shape,
    dtype) before its data is read, and only numbers, bools and strings are
    read: pickled members are refused, never unpickled. :meth:`load` is
    all-or-nothing (see :func:`load_npz`).

    Args:
        npz: The archive opened by ``numpy.load``, or a dict of arrays.
        path (str): Path prefix of the keys read by this deserializer.
        strict (bool): If ``True``, a missing key raises ``KeyError``
            (unless ``ignore_names`` skips it); otherwise the value is left
            as it is.
        ignore_names (str, callable or list of them): Keys to skip; a string
            matches one full key, a callable is called with the key and skips
            it when it returns ``True``.
    """

    def __init__(self, npz, path="", strict=True, ignore_names=None):
        if not hasattr(npz, "__getitem__") or not hasattr(npz, "__contains__"):
            raise TypeError(
                "npz must be an NpzFile returned by numpy.load or a mapping of "
                f"names to arrays, not {type(npz).__name__}"
            )
        if ignore_names is None:
            ignore_names = []
        names = (
            ignore_names if isinstance(ignore_names, (list, tuple)) else [ignore_names]
        )
        for name in names:
            if not (isinstance(name, str) or callable(name)):
                raise ValueError(
                    "ignore_names needs to be a callable, string or list of them; "
                    f"got {name!r}"
                )
        self.npz = npz
        self.path = path
        self.strict = strict
        self.ignore_names = ignore_names
        self._names = names
        self._source = _source_name(npz)
        # Set on the deserializers of the two passes of load().
        self._mode = None
        self._cache = None

    def __getitem__(self, key):
        """Returns the deserializer of the child named ``key``."""
        key = key.strip("/")
        child = NpzDeserializer(
            self.npz,
            self.path + key + "/",
            strict=self.strict,
            ignore_names=self.ignore_names,
        )
        child._source = self._source
        child._mode = self._mode
        child._cache = self._cache
        return child

    def __call__(self, key, value):
        """Loads the entry ``key`` into or according to ``value``.

        Args:
            key (str): Name of the entry.
            value: An array or Variable to fill in place (an uninitialized
                Parameter is initialized with the stored shape), a scalar or
                str whose type the stored value is converted to, or ``None``
                to get the stored array itself.

        Returns:
            The loaded value: ``value`` itself for arrays and Variables, the
            converted value for scalars and strings, ``None`` when ``None``
            was saved (an error if ``value`` holds an array).
        """
        key = self.path + key.lstrip("/")
        # NpzFile.files, not ``in npz``: NumPy < 1.25 answers ``in`` by loading
        # the member, which fails for pickled or damaged members.
        files = getattr(self.npz, "files", None)
        names = self.npz if files is None else files
        if key not in names:
            if not self.strict or self._ignored(key):
                return value
            raise _EntryNotFound(_missing_message(key, names, self._source))
        if self._ignored(key):
            return value
        return self._entry(key, value, lambda: self._open_entry(key))

    def _ignored(self, key):
        for name in self._names:
            if name == key if isinstance(name, str) else name(key):
                return True
        return False

    def _pass(self, mode, cache):
        d = NpzDeserializer(
            self.npz, self.path, strict=self.strict, ignore_names=self.ignore_names
        )
        d._source = self._source
        d._mode = mode
        d._cache = cache
        return d

    def _open_entry(self, key):
        zf = getattr(self.npz, "zip", None)
        if zf is not None:
            return _open_member(zf, key, self._source)
        value = self.npz[key]
        if value is None:
            return None
        if isinstance(value, numpy.ndarray):
            arr = value
        elif backend.is_array_supported(value):
            arr = backend.CpuDevice().send(value)
        else:
            arr = numpy.asarray(value)
        if _is_none(arr.shape, arr.dtype) and (
            not arr.dtype.hasobject or arr.item() is None
        ):
            return None
        return arr.shape, arr.dtype, lambda: arr


def _source_name(npz):
    zf = getattr(npz, "zip", None)
    name = getattr(zf, "filename", None)
    if name:
        return f"'{name}'"
    if isinstance(npz, dict):
        return "the given dictionary"
    return "the NPZ archive"


def _missing_message(key, names, source):
    """Says that ``key`` is missing; and why, when the whole part is missing.

    It runs only once a key is found missing, so it costs a normal load
    nothing. When the file has no entry at all under the key's first
    component (a model file loaded into a Trainer holds ``predictor/...``
    but the trainer asks for ``updater/...``), the file was saved from
    another kind of object, and the message says what the file holds.
    """
    top, slash, _ = key.partition("/")
    tops = set()
    for name in names:
        first, sep, _ = str(name).partition("/")
        # A missing top-level entry beside others is a plain missing key.
        if (first == top and (sep or not slash)) or not (slash or sep):
            return f"{key!r} is not found in {source}"
        tops.add(first + sep)
    if not tops:
        return f"{key!r} is not found in {source}, which holds no entries at all"
    what = f"no {top + slash!r} entries" if slash else f"no entry {top!r}"
    listed = sorted(tops)
    shown = ", ".join(repr(name) for name in listed[:_LISTED_NAMES])
    if len(listed) > _LISTED_NAMES:
        shown += f" and {len(listed) - _LISTED_NAMES} more"
    message = (
        f"{key!r} is not found in {source}: the file holds {what} (its entries "
        f"start with {shown}); it was saved from another object"
    )
    if top == "updater":
        return message + (
            ", e.g. a model written by snapshot_object rather than a trainer "
            "snapshot written by extensions.snapshot()"
        )
    if "updater/" in tops:
        return message + (
            ", e.g. a trainer snapshot written by extensions.snapshot(); a "
            "model is loaded out of one with path='updater/model:main/'"
        )
    return message + (
        "; if the object is a part of the one saved, name the part with "
        f"path=, e.g. path={listed[0]!r}"
    )


def _is_none(shape, dtype):
    # Ours is the marker dtype; Chainer's is numpy.asarray(None), a pickled
    # 0-d object array, which nothing else Chainer saves is.
    return dtype == _NONE_DTYPE or (tuple(shape) == () and dtype.hasobject)


def _open_member(zf, key, source):
    """Reads a member's ``.npy`` header: ``None``, or ``(shape, dtype, read)``.

    The header and the zip entry's sizes are checked for consistency here,
    so that ``read`` never allocates more than the header declares nor
    decompresses more than that.
    """
    name = key + ".npy"
    try:
        info = zf.getinfo(name if name in zf.NameToInfo else key)
        with zf.open(info) as member:
            shape, fortran_order, dtype = _read_npy_header(member)
            offset = member.tell()
    except (*_READ_ERRORS, KeyError) as exc:
        raise ValueError(
            f"cannot read {key!r} from {source}: the file is corrupted ({exc})"
        ) from exc
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ValueError(
            f"cannot read {key!r} from {source}: zip compression method "
            f"{info.compress_type} is not supported (only stored and deflated)"
        )
    if _is_none(shape, dtype):
        if info.file_size > _MAX_NONE_SIZE:
            raise ValueError(
                f"cannot load {key!r} from {source}: it holds a pickled object "
                "larger than a stored None; pickled data is never loaded"
            )
        _read_none(zf, info, key, source)
        return None
    _common.check_dtype(key, dtype, source)
    nbytes = math.prod(shape) * dtype.itemsize
    if info.file_size != offset + nbytes:
        raise ValueError(
            f"cannot read {key!r} from {source}: its header declares shape "
            f"{shape} of dtype {dtype} ({nbytes} bytes) but the member holds "
            f"{info.file_size - offset} bytes of data"
        )
    # Deflate cannot expand data more than about 1032 times: a member claiming
    # more is damaged or crafted, and is refused before it is decompressed.
    if info.file_size > _max_expanded_size(info):
        raise ValueError(
            f"cannot read {key!r} from {source}: it declares {info.file_size} "
            f"bytes, more than {info.compress_size} compressed bytes can hold"
        )

    def read():
        arr = _common.allocate(key, shape, dtype, source)
        try:
            with zf.open(info) as member:
                _read_npy_header(member)
                _read_exactly(member, memoryview(arr.view(numpy.uint8)))
                # Reading past the end makes zipfile check the CRC-32.
                if member.read(1):
                    raise ValueError("the member holds more data than declared")
        except _READ_ERRORS as exc:
            raise ValueError(
                f"cannot read {key!r} from {source}: the file is corrupted ({exc})"
            ) from exc
        return arr.reshape(shape, order="F" if fortran_order else "C")

    return shape, dtype, read


def _read_none(zf, info, key, source):
    # The bytes of a stored None are read (never unpickled) so that a damaged
    # member fails its CRC check like any other.
    try:
        with zf.open(info) as member:
            while member.read(_CHUNK):
                pass
    except _READ_ERRORS as exc:
        raise ValueError(
            f"cannot read {key!r} from {source}: the file is corrupted ({exc})"
        ) from exc


def _max_expanded_size(info):
    if info.compress_type == zipfile.ZIP_STORED:
        return info.compress_size
    return info.compress_size * 1032 + 1024


def _read_npy_header(member):
    version = numpy.lib.format.read_magic(member)
    if version == (1, 0):
        return numpy.lib.format.read_array_header_1_0(member)
    if version == (2, 0):
        return numpy.lib.format.read_array_header_2_0(member)
    raise ValueError(f".npy format version {version} is not supported")


def _read_exactly(member, buf):
    pos = 0
    size = len(buf)
    while pos < size:
        chunk = member.read(min(_CHUNK, size - pos))
        if not chunk:
            raise EOFError("the member ends before its declared size")
        buf[pos : pos + len(chunk)] = chunk
        pos += len(chunk)


def _write_npz(fileobj, target, compression):
    mode = zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED
    with zipfile.ZipFile(fileobj, mode="w", compression=mode, allowZip64=True) as zf:
        for key, arr in target.items():
            with zf.open(key + ".npy", "w", force_zip64=True) as member:
                numpy.lib.format.write_array(member, arr, allow_pickle=False)


def save_npz(file, obj, compression=True):
    """Saves an object to a file in NPZ format.

    The object's ``serialize`` method is run with a
    :class:`DictionarySerializer`, and the collected arrays are written as
    an NPZ archive loadable by ``numpy.load``. Writing to a path is atomic: a
    temporary file in the same directory is renamed over ``file`` once
    complete, so an interrupted save never leaves a truncated file.

    Args:
        file (str, path-like or file object): Target file.
        obj: Object to save (a Link, Optimizer, Trainer or anything with a
            ``serialize(serializer)`` method), or a dict from keys to arrays
            (an already serialized object, as snapshot writers pass), which
            is saved as it is.
        compression (bool): If ``True``, the archive is zip-deflated.
    """
    if isinstance(obj, dict):
        target = {key: _to_host(key, value) for key, value in obj.items()}
    else:
        s = DictionarySerializer()
        s.save(obj)
        target = s.target
    if isinstance(file, (str, bytes, os.PathLike)):
        with _common.atomic_path(file) as tmp, open(tmp, "wb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                # A FIFO or a device is written in place; it cannot seek back
                # to fill in zip headers, so the archive is streamed.
                f = _StreamOnly(f)
            _write_npz(f, target, compression)
    else:
        if not hasattr(file, "write"):
            raise TypeError(
                "file must be a path or a writable binary file object, not "
                f"{type(file).__name__}"
            )
        _write_npz(file, target, compression)


class _StreamOnly:
    """A file seen without ``seek``/``tell``, so that zipfile streams to it."""

    def __init__(self, file):
        self._file = file

    def write(self, data):
        return self._file.write(data)

    def flush(self):
        self._file.flush()


def load_npz(file, obj, path="", strict=True, ignore_names=None):
    """Loads an object from a file in NPZ format.

    Loading is all-or-nothing: every entry ``obj`` asks for is read and
    checked (CRC-32, a ``.npy`` header whose shape and dtype suit the target,
    numbers or strings only, no ``None`` where the target holds an array)
    before anything is assigned, and if anything fails ``obj`` is left as it
    was. Headers are checked before data is decompressed. Pickled members
    are refused and never unpickled; Chainer's pickled ``None`` is
    recognized from its header.

    Args:
        file (str, path-like or file object): File to read.
        obj: Object to load into; it must be constructed the same way as the
            saved one.
        path (str): Path in the archive where ``obj`` is stored, e.g.
            ``'updater/model:main/'`` to load a model out of a trainer
            snapshot.
        strict (bool): If ``True``, a key that ``obj`` asks for but the file
            lacks raises ``KeyError``.
        ignore_names (str, callable or list of them): Keys not to load; see
            :class:`NpzDeserializer`.

    Raises:
        IsADirectoryError: ``file`` is a directory; the message names the
            newest ``snapshot_iter_N`` in it, if any.
        ValueError: ``file`` is empty, not a zip archive, or damaged, or an
            entry does not suit the target.
        KeyError: With ``strict``, an entry ``obj`` asks for is missing. If
            the file holds nothing under the entry's first path component,
            the message lists what it holds: it was saved from another kind
            of object (e.g. a model file given where a trainer snapshot is
            expected).
    """
    source = _common.describe(file)
    if isinstance(file, (str, bytes, os.PathLike)):
        # Opened here rather than by numpy.load, which leaks the handle when
        # the archive turns out to be damaged.
        with _open(file, source) as f:
            _load_from(f, obj, source, path, strict, ignore_names)
    else:
        _load_from(file, obj, source, path, strict, ignore_names)


def _open(file, source):
    """Opens ``file`` for reading; a directory raises a message saying so."""
    try:
        return open(file, "rb")
    except (IsADirectoryError, PermissionError) as exc:
        # Windows says PermissionError for a directory.
        if not os.path.isdir(file):
            raise
        error = IsADirectoryError(_directory_message(file, source))
        error.errno = errno.EISDIR
        raise error from exc


def _directory_message(directory, source):
    """Says that a directory was given, naming its newest trainer snapshot."""
    message = f"{source} is a directory; load_npz reads one NPZ file"
    newest = None
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                match = _SNAPSHOT_NAME.fullmatch(entry.name)
                if match and entry.is_file():
                    iteration = int(match.group(1))
                    if newest is None or iteration > newest[0]:
                        newest = (iteration, entry.name)
    except OSError:
        pass
    if newest is None:
        return message + (
            ", such as a trainer snapshot written by extensions.snapshot(), "
            "and it holds no snapshot_iter_N file"
        )
    example = os.path.join(os.fsdecode(directory), newest[1])
    return message + f" (a trainer snapshot such as {example}, the newest there)"


def _load_from(f, obj, source, path, strict, ignore_names):
    try:
        start = f.tell()
    except (AttributeError, OSError, ValueError):
        start = None
    try:
        npz = numpy.load(f, allow_pickle=False)
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError) as exc:
        raise ValueError(_unreadable_message(f, start, source, exc)) from exc
    if not isinstance(npz, numpy.lib.npyio.NpzFile):
        raise ValueError(f"{source} is a single .npy array, not an NPZ archive")
    with npz:
        d = NpzDeserializer(npz, path=path, strict=strict, ignore_names=ignore_names)
        d._source = source
        d.load(obj)


def _unreadable_message(f, start, source, exc):
    """Says why ``numpy.load`` could not read a file, from its first bytes."""
    head = None
    if start is not None:
        try:
            f.seek(start)
            head = f.read(4)
        except (OSError, ValueError):
            head = None
    message = f"{source} is not a readable NPZ file"
    if head == b"":
        return message + ": it is empty"
    if isinstance(head, bytes) and not head.startswith(b"PK"):
        return message + (
            ": it is not a zip archive (an NPZ file, as save_npz and "
            "extensions.snapshot() write it, is a zip archive of .npy arrays)"
        )
    return message + f": the zip archive is damaged or truncated ({exc})"
