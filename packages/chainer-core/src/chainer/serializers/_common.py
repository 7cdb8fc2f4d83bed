"""Helpers shared by the NPZ and HDF5 (de)serializers: atomic writes, loading.

Loading is all-or-nothing (:func:`load_all_or_nothing`): a checking pass reads
and validates every entry the target asks for before an assigning pass writes
anything, and a failure restores what the target held before.
"""

from __future__ import annotations

import math
import os

import numpy

from chainer import backend
from chainer import serializer
from chainer import variable
from chainer.utils import atomic_file

# Dtype kinds a stored array may have: bool, numbers and strings. Anything
# else (objects, which need unpickling; records; datetimes) is refused.
_LOADABLE_KINDS = frozenset("biufcUS")


def atomic_path(path):
    """Yields a temporary path beside ``path``; renames it over ``path`` on success.

    It is :func:`chainer.utils.atomic_file.atomic_path`: the mode of the file
    replaced is kept, a symbolic link is followed (its target replaced), a
    FIFO or device is written directly, and stale temporary files of the
    directory are removed first. A crash or exception leaves ``path``
    untouched and removes the temporary file, so readers never see a
    half-written file.
    """
    return atomic_file.atomic_path(path)


def describe(file):
    """Returns how a file argument is named in error messages."""
    if isinstance(file, (str, bytes, os.PathLike)):
        return f"'{os.fsdecode(file)}'"
    name = getattr(file, "name", None)
    return f"'{name}'" if isinstance(name, str) else repr(file)


# -- checking entries before they are read ------------------------------------


def check_dtype(key, dtype, source):
    """Raises ``ValueError`` unless a stored dtype is a number, bool or string."""
    if dtype.kind in _LOADABLE_KINDS:
        return
    if dtype.hasobject:
        raise ValueError(
            f"cannot load {key!r} from {source}: it holds Python objects "
            f"(dtype {dtype}), which only unpickling could read; pickled data "
            "is never loaded"
        )
    raise ValueError(
        f"cannot load {key!r} from {source}: its dtype {dtype} is neither a "
        "number nor a string"
    )


def expects_array(value):
    """Tells whether ``value`` is an array or a Variable holding one."""
    if isinstance(value, variable.Variable):
        return value.array is not None
    return hasattr(value, "shape") and not isinstance(value, numpy.generic)


def check_none(key, value, source):
    """Raises ``ValueError`` if a stored ``None`` would replace an array."""
    if expects_array(value):
        raise ValueError(
            f"{key!r} in {source} holds None, but the target holds an array of "
            f"shape {tuple(value.shape)}; the file was saved from an object "
            "whose value was never set"
        )


def check_header(key, shape, dtype, value, source):
    """Checks a stored array's shape and dtype against the target.

    It runs on the header alone, before any data is read, so that a member
    far larger than the target is refused without being decompressed.
    """
    shape = tuple(shape)
    check_dtype(key, dtype, source)
    if isinstance(value, variable.Variable):
        value = value.array
    if value is None:
        # None asks for the stored array; an uninitialized Parameter takes
        # the stored shape.
        return
    if isinstance(value, numpy.generic) or not hasattr(value, "shape"):
        if math.prod(shape) != 1:
            raise ValueError(
                f"cannot load {key!r} from {source} into a "
                f"{type(value).__name__}: the stored value is an array of "
                f"shape {shape}"
            )
        _check_scalar_dtype(key, dtype, type(value), source)
        return
    if shape != tuple(value.shape):
        raise ValueError(
            f"shape mismatch for {key!r} in {source}: the stored array has shape "
            f"{shape} but the target has shape {tuple(value.shape)}"
        )
    if not numpy.can_cast(dtype, value.dtype, "same_kind"):
        raise TypeError(
            f"cannot load {key!r} from {source}: stored dtype {dtype} cannot be "
            f"cast to {value.dtype}"
        )


def allocate(key, shape, dtype, source):
    """Returns an empty host array for a stored one, naming it if it does not fit."""
    count = math.prod(shape)
    try:
        return numpy.empty(count, dtype=dtype)
    except (MemoryError, ValueError) as exc:
        raise MemoryError(
            f"cannot load {key!r} from {source}: its header declares shape "
            f"{tuple(shape)} of dtype {dtype} ({count * dtype.itemsize} bytes), "
            "which does not fit in memory"
        ) from exc


def fetch(cache, key, value, source, open_entry):
    """Reads and checks one stored entry; returns a host array or ``None``.

    ``open_entry()`` returns ``None`` for a stored ``None``, or ``(shape,
    dtype, read)`` from the entry's header, ``read()`` then giving the data.
    The header is checked against ``value`` before ``read`` is called. With a
    ``cache`` (a dict shared by the passes of one load), an entry is read
    once and later passes check the array already read.
    """
    if cache is not None and key in cache:
        stored = cache[key]
        if stored is None:
            check_none(key, value, source)
        else:
            check_header(key, stored.shape, stored.dtype, value, source)
        return stored
    entry = open_entry()
    if entry is None:
        check_none(key, value, source)
        stored = None
    else:
        shape, dtype, read = entry
        check_header(key, shape, dtype, value, source)
        stored = read()
    if cache is not None:
        cache[key] = stored
    return stored


def preview(key, stored, value, source):
    """Returns what :func:`restore` returns, without writing into the target.

    The checking pass uses it: arrays and Variables come back untouched,
    scalars and strings converted, ``None`` gets the stored array.
    """
    if value is None or stored is None:
        return stored
    if isinstance(value, variable.Variable):
        return value
    if isinstance(value, numpy.generic) or not hasattr(value, "shape"):
        return _convert_scalar(key, stored, value, source)
    return value


# -- loading in two passes ------------------------------------------------------


def load_all_or_nothing(make_pass, obj):
    """Loads ``obj`` so that a failure leaves it as it was.

    ``make_pass(mode, cache)`` returns the deserializer of one pass. The
    ``'check'`` pass runs ``obj.serialize`` reading and checking every entry
    it asks for, writing into no array; the ``'assign'`` pass then loads the
    arrays the first one read. Before both, the values of ``obj`` are saved
    (host copies); if anything raises, they are loaded back, parameters that
    were uninitialized become so again and update rules get their former
    attributes (a rule without state stays without), and the error is
    raised again.
    """
    backup = _Recorder()
    backup.save(obj)
    lazy = _LazyState(obj)
    cache = {}
    try:
        make_pass("check", cache).load(obj)
        make_pass("assign", cache).load(obj)
    except BaseException:
        lazy.restore()
        _Restorer(backup.target).load(obj)
        raise


class TwoPassDeserializer(serializer.Deserializer):
    """Base of the NPZ and HDF5 deserializers: loading in two passes.

    A subclass sets ``_mode`` (None, ``'check'`` or ``'assign'``),
    ``_cache`` and ``_source``, implements ``_pass(mode, cache)`` (see
    :func:`load_all_or_nothing`) and answers each entry through
    :meth:`_entry`.
    """

    _mode = None

    def load(self, obj):
        """Loads ``obj``; a failure leaves it as it was.

        Every entry ``obj`` asks for is read and checked before any is
        assigned (see :func:`load_all_or_nothing`).

        Args:
            obj: Object with a ``serialize(serializer)`` method.
        """
        if self._mode is not None:
            super().load(obj)
        else:
            load_all_or_nothing(self._pass, obj)

    def _entry(self, key, value, open_entry):
        # One entry in the current pass: checked (and cached) in the check
        # pass, restored into ``value`` in the assign pass.
        stored = fetch(self._cache, key, value, self._source, open_entry)
        if self._mode == "check":
            return preview(key, stored, value, self._source)
        if stored is None:
            return None
        return restore(key, stored, value, self._source)


class _Recorder(serializer.Serializer):
    """Serializer keeping host copies of an object's values."""

    def __init__(self, target=None, path=""):
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key):
        return _Recorder(self.target, self.path + key.strip("/") + "/")

    def __call__(self, key, value):
        stored = value.array if isinstance(value, variable.Variable) else value
        if isinstance(stored, numpy.ndarray):
            stored = stored.copy()
        elif stored is not None and backend.is_array_supported(stored):
            stored = backend.CpuDevice().send(stored)
        self.target[self.path + key.lstrip("/")] = stored
        return value


class _Restorer(serializer.Deserializer):
    """Deserializer loading back what a :class:`_Recorder` kept."""

    def __init__(self, backup, path=""):
        self.backup = backup
        self.path = path

    def __getitem__(self, key):
        return _Restorer(self.backup, self.path + key.strip("/") + "/")

    def __call__(self, key, value):
        key = self.path + key.lstrip("/")
        if key not in self.backup:
            return value
        stored = self.backup[key]
        if stored is None:
            return value if expects_array(value) else None
        return restore(key, stored, value, "the values held before loading")


class _LazyState:
    """Parameters and update rules of ``obj`` whose state loading may create.

    Loading initializes an uninitialized Parameter and creates the state of
    an update rule that has none; loading the backup cannot undo that, so
    :meth:`restore` does. The links are found the way Chainer's objects hold
    them: a Link itself, an Optimizer's ``target``, and the optimizers of an
    Updater or of a Trainer's ``updater``.
    """

    def __init__(self, obj):
        self.params = []
        self.rules = []
        seen = set()
        for link in _links_of(obj):
            for param in link.params():
                if id(param) in seen:
                    continue
                seen.add(id(param))
                if param.array is None:
                    self.params.append(param)
                rule = getattr(param, "update_rule", None)
                if rule is not None and hasattr(rule, "__dict__"):
                    self.rules.append((rule, dict(vars(rule))))

    def restore(self):
        for param in self.params:
            if param.array is not None:
                param.cleargrad()
                param.array = None
        for rule, attrs in self.rules:
            state = vars(rule)
            state.clear()
            state.update(attrs)


def _links_of(obj):
    candidates = [obj, getattr(obj, "target", None)]
    updater = getattr(obj, "updater", obj)
    get_all_optimizers = getattr(updater, "get_all_optimizers", None)
    if callable(get_all_optimizers):
        for optimizer in get_all_optimizers().values():
            candidates.append(getattr(optimizer, "target", None))
    return [link for link in candidates if callable(getattr(link, "params", None))]


# -- assigning ------------------------------------------------------------------


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
    _check_scalar_dtype(key, arr.dtype, value_type, source)
    item = arr.reshape(()).item()
    if isinstance(item, bytes) and issubclass(value_type, str):
        item = item.decode("utf-8")
    try:
        return value_type(item)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"cannot convert {key!r} from {source} to {value_type.__name__}: {exc}"
        ) from exc


def _check_scalar_dtype(key, dtype, value_type, source):
    kind = dtype.kind
    # Any stored integer fits a Python int, whatever numpy.can_cast says about
    # the platform's C long.
    if (
        kind in "biufc"
        and not (kind in "biu" and issubclass(value_type, int))
        and not numpy.can_cast(dtype, value_type)
    ):
        raise TypeError(
            f"cannot safely load {key!r} from {source}: stored dtype {dtype} "
            f"does not convert to {value_type.__name__}"
        )
