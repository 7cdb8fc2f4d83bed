"""Helpers shared by the NPZ and HDF5 (de)serializers: atomic writes, loading."""

from __future__ import annotations

import contextlib
import os
import secrets

import numpy

from chainer import backend
from chainer import variable


@contextlib.contextmanager
def atomic_path(path):
    """Yields a temporary path beside ``path``; renames it over ``path`` on success.

    A crash or exception leaves ``path`` untouched and removes the temporary
    file, so readers never see a half-written file.
    """
    path = os.fspath(path)
    directory, base = os.path.split(os.path.abspath(os.fsdecode(path)))
    tmp = os.path.join(directory, f".{base}.{secrets.token_hex(6)}.tmp")
    # os.open with mode 0o666 gives the final file the usual umask-derived
    # permissions; mkstemp would leave it readable by the owner only.
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except FileNotFoundError:
        raise FileNotFoundError(
            f"cannot write '{path}': directory '{directory}' does not exist"
        ) from None
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def describe(file):
    """Returns how a file argument is named in error messages."""
    if isinstance(file, (str, bytes, os.PathLike)):
        return f"'{os.fsdecode(file)}'"
    name = getattr(file, "name", None)
    return f"'{name}'" if isinstance(name, str) else repr(file)


def restore(key, stored, value, source):
    """Loads ``stored`` (a host array) as the deserializers' ``__call__`` does.

    Arrays and Variables in ``value`` are filled in place, scalars and strings
    are converted, and ``None`` returns the stored array.
    """
    if value is None:
        return stored
    if isinstance(value, variable.Variable):
        _restore_variable(key, stored, value, source)
        return value
    if isinstance(value, numpy.generic) or not hasattr(value, "shape"):
        return _convert_scalar(key, stored, value, source)
    _copy_into(key, stored, value, source)
    return value


def _restore_variable(key, stored, var, source):
    if var.array is None:
        initialize = getattr(var, "initialize", None)
        if initialize is None:
            var.array = numpy.array(stored)
            return
        # An uninitialized Parameter takes the stored shape.
        initialize(tuple(numpy.shape(stored)))
    _copy_into(key, stored, var.array, source)


def _copy_into(key, stored, array, source):
    stored = numpy.asarray(stored)
    if stored.shape != tuple(array.shape):
        raise ValueError(
            f"shape mismatch for {key!r} in {source}: the stored array has shape "
            f"{stored.shape} but the target has shape {tuple(array.shape)}"
        )
    try:
        backend.copyto(array, stored)
    except TypeError as exc:
        raise TypeError(
            f"cannot load {key!r} from {source}: stored dtype {stored.dtype} "
            f"cannot be cast to {array.dtype} ({exc})"
        ) from exc


def _convert_scalar(key, stored, value, source):
    value_type = type(value)
    arr = numpy.asarray(stored)
    if arr.size != 1:
        raise ValueError(
            f"cannot load {key!r} from {source} into a {value_type.__name__}: the "
            f"stored value is an array of shape {arr.shape}"
        )
    kind = arr.dtype.kind
    # Any stored integer fits a Python int, whatever numpy.can_cast says about
    # the platform's C long.
    if (
        kind in "biufc"
        and not (kind in "biu" and issubclass(value_type, int))
        and not numpy.can_cast(arr.dtype, value_type)
    ):
        raise TypeError(
            f"cannot safely load {key!r} from {source}: stored dtype {arr.dtype} "
            f"does not convert to {value_type.__name__}"
        )
    item = arr.reshape(()).item()
    if isinstance(item, bytes) and issubclass(value_type, str):
        item = item.decode("utf-8")
    try:
        return value_type(item)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"cannot convert {key!r} from {source} to {value_type.__name__}: {exc}"
        ) from exc
