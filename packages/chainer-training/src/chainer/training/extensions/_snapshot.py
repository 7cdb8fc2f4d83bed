"""The ``snapshot`` and ``snapshot_object`` trainer extensions."""

from __future__ import annotations

import numbers
import os
import re
import string
import warnings
import zipfile
import zlib

import numpy

from chainer import backend
from chainer import serializer as serializer_module
from chainer import serializers
from chainer import variable
from chainer.training import extension
from chainer.training.extensions import snapshot_writers

_OPTIONS = {
    "target": None,
    "condition": None,
    "writer": None,
    "snapshot_on_error": False,
    "n_retains": -1,
    "num_retain": None,
    "autoload": False,
}

# snapshot_writers names its temporary files ``tmp.<12 hex digits>.<name>``;
# they are never snapshot candidates, whatever the filename pattern.
_TEMPORARY_NAME = re.compile(r"tmp\.[0-9a-f]{12}\.")

_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
_ZIP_MAGIC = b"PK\x03\x04"
_CORRUPTION_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError)


def snapshot_object(target, filename, savefun=None, **kwargs):
    """Returns a trainer extension to take snapshots of a given object.

    It serializes ``target`` (a Link, an Optimizer or anything with a
    ``serialize(serializer)`` method) into ``out/filename``. The file can be
    loaded straight into a fresh object of the same kind with
    :func:`~chainer.serializers.load_npz`.

    Args:
        target: Object to serialize.
        filename (str or callable): Name of the file into which the object
            is serialized. A string is a format template to which the trainer
            is passed with :meth:`str.format`, e.g.
            ``'snapshot_{.updater.iteration}'`` becomes ``'snapshot_10000'``
            at the 10,000th iteration; a callable is called with the trainer
            and returns the name.
        savefun (callable): Function to save the object, called with the
            output file path and the serialized dictionary. Defaults to
            :func:`~chainer.serializers.save_npz`.
        **kwargs: ``condition``, ``writer``, ``snapshot_on_error``,
            ``n_retains`` and ``autoload``, as in :func:`snapshot`.

    Returns:
        ~chainer.training.Extension: Snapshot extension object (trigger
        ``(1, 'epoch')``, priority -100).
    """
    if "target" in kwargs:
        raise TypeError("snapshot_object() got multiple values for argument 'target'")
    return _make("snapshot_object", savefun, filename, dict(kwargs, target=target))


def snapshot(savefun=None, filename="snapshot_iter_{.updater.iteration}", **kwargs):
    """Returns a trainer extension to take snapshots of the trainer.

    It serializes the trainer (its updater with the models, optimizers and
    iterators, the extensions and their triggers) into ``out/filename``;
    loading the file into an identically built trainer with
    :func:`~chainer.serializers.load_npz` resumes the training. By default a
    snapshot is taken every epoch, after the other extensions (priority
    -100).

    Files are written atomically (see
    :mod:`~chainer.training.extensions.snapshot_writers`): a crash never
    leaves a truncated file under a snapshot name.

    Args:
        savefun (callable): Function to save the trainer, called with the
            output file path and the serialized dictionary. Defaults to
            :func:`~chainer.serializers.save_npz`. It cannot be combined with
            ``writer``.
        filename (str or callable): Name of the file into which the trainer
            is serialized. A string is a format template to which the
            trainer is passed with :meth:`str.format`, e.g.
            ``'snapshot_{.updater.iteration}'`` becomes ``'snapshot_10000'``
            at the 10,000th iteration; a callable is called with the trainer
            and returns the name.
        target: Object to serialize instead of the trainer.
        condition (callable): Called with no argument each time the trigger
            fires; the snapshot is taken only if it returns ``True``. By
            default it always is.
        writer (callable): Snapshot writer, e.g. a
            :class:`~chainer.training.extensions.snapshot_writers.ThreadWriter`.
            By default a
            :class:`~chainer.training.extensions.snapshot_writers.SimpleWriter`
            with ``savefun``.
        snapshot_on_error (bool): Whether to take a snapshot when the training
            loop fails with an exception.
        n_retains (int): Number of snapshot files to keep: after each save,
            the oldest files (by modification time) whose names match
            ``filename`` are removed. Cleanup happens only for a positive
            value and a string ``filename``.
        num_retain (int): Same as ``n_retains`` (deprecated).
        autoload (bool): When the training starts, find the latest snapshot
            in the output directory whose name matches ``filename`` and load
            it into the trainer (or ``target``). Files that cannot be read
            (truncated or otherwise damaged) are skipped with a warning, and
            unfinished temporary files are never considered. A snapshot that
            does not fit the trainer (a missing key, a wrong shape, ``None``
            where the trainer holds an array) raises, and like any failed
            load it leaves the trainer as it was. Works only for a string
            ``filename`` and files saved in NPZ (or HDF5) format.

    Returns:
        ~chainer.training.Extension: Snapshot extension object (trigger
        ``(1, 'epoch')``, priority -100).
    """
    return _make("snapshot", savefun, filename, kwargs)


def _make(caller, savefun, filename, kwargs):
    for key in kwargs:
        if key not in _OPTIONS:
            hint = ""
            if key in ("trigger", "priority", "name"):
                hint = f"; pass {key}= to trainer.extend() instead"
            raise TypeError(
                f"{caller}() got an unexpected keyword argument {key!r}{hint}"
            )
    options = dict(_OPTIONS, **kwargs)
    num_retain = options.pop("num_retain")
    if num_retain is not None:
        if "n_retains" in kwargs:
            raise TypeError(
                f"{caller}() got both n_retains and num_retain; use n_retains only"
            )
        warnings.warn(
            "the num_retain argument of snapshot is deprecated; use n_retains",
            DeprecationWarning,
        )
        options["n_retains"] = num_retain
    writer = options["writer"]
    if writer is not None and savefun is not None:
        raise TypeError("savefun and writer arguments cannot be specified together.")
    if writer is None:
        if savefun is None:
            savefun = serializers.save_npz
        elif not callable(savefun):
            raise TypeError(f"savefun must be callable, got {savefun!r}")
        options["writer"] = snapshot_writers.SimpleWriter(savefun=savefun)
    return _Snapshot(filename=filename, **options)


def _always_true():
    return True


class _Snapshot(extension.Extension):
    """Trainer extension taking snapshots; made by :func:`snapshot`.

    Args:
        target: Object to serialize; the trainer if ``None``.
        condition (callable): Called with no argument; a snapshot is taken
            only when it returns ``True``.
        writer (callable): Snapshot writer.
        filename (str or callable): File name template, or a function of the
            trainer returning the name.
        snapshot_on_error (bool): Whether to take a snapshot on an error.
        n_retains (int): Number of snapshot files to keep (all if not
            positive).
        autoload (bool): Whether to load the latest snapshot at start.
    """

    trigger = 1, "epoch"
    priority = -100

    def __init__(
        self,
        target=None,
        condition=None,
        writer=None,
        filename="snapshot_iter_{.updater.iteration}",
        snapshot_on_error=False,
        n_retains=-1,
        autoload=False,
    ):
        if condition is None:
            condition = _always_true
        elif not callable(condition):
            raise TypeError(f"condition must be callable, got {condition!r}")
        if writer is None:
            writer = snapshot_writers.SimpleWriter()
        elif not callable(writer):
            raise TypeError(
                f"writer must be a callable snapshot writer, got {writer!r}"
            )
        if isinstance(n_retains, bool) or not isinstance(n_retains, numbers.Integral):
            raise TypeError(f"n_retains must be an int, got {n_retains!r}")
        n_retains = int(n_retains)
        self._pattern = None
        if isinstance(filename, str):
            self._pattern = _FilePattern(filename)
            if (n_retains > 0 or autoload) and self._pattern.regex is None:
                raise ValueError(
                    f"snapshot filename {filename!r} has format fields in its "
                    "directory part; n_retains and autoload need them in the "
                    "file name itself"
                )
        elif not callable(filename):
            raise TypeError(
                "filename must be a format string or a callable taking the "
                f"trainer, got {filename!r}"
            )
        elif n_retains > 0 or autoload:
            # Chainer ignores them silently; a callable name has no pattern
            # to match existing files against.
            warnings.warn(
                "snapshot: n_retains and autoload only work with a string "
                "filename; they are ignored for a callable one",
                UserWarning,
            )
        self._target = target
        self.filename = filename
        self.condition = condition
        self.writer = writer
        self._snapshot_on_error = bool(snapshot_on_error)
        self.n_retains = n_retains
        self.autoload = bool(autoload)
        self._cleanup_added = False
        # A SimpleWriter has written the file before returning, so the live
        # arrays can go to it as they are; other writers get copies.
        self._copy_arrays = not isinstance(writer, snapshot_writers.SimpleWriter)

    def initialize(self, trainer):
        """Loads the latest good snapshot (``autoload``) and sets up cleanup.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        target = trainer if self._target is None else self._target
        outdir = trainer.out
        if self.autoload and self._pattern is not None:
            for path in self._pattern.find(outdir, newest_first=True):
                if _load_if_readable(path, target):
                    break
        if self.n_retains > 0 and self._pattern is not None and not self._cleanup_added:
            self._cleanup_added = True
            add_hook = getattr(self.writer, "_add_cleanup_hook", None)
            if add_hook is None:
                warnings.warn(
                    f"snapshot: n_retains has no effect with the writer "
                    f"{self.writer!r}, which has no _add_cleanup_hook method "
                    "(subclass snapshot_writers.Writer to get it)",
                    UserWarning,
                )
            else:
                # Writers run the hook right after each completed save, in
                # the worker that wrote the file.
                add_hook(_Retention(self._pattern, outdir, self.n_retains))

    def on_error(self, trainer, exc, tb):
        """Takes a snapshot if ``snapshot_on_error`` is set.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
            exc (Exception): The exception raised in the training loop.
            tb: Its traceback.
        """
        super().on_error(trainer, exc, tb)
        if self._snapshot_on_error:
            self._make_snapshot(trainer)

    def __call__(self, trainer):
        """Takes a snapshot if the condition holds.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        if self.condition():
            self._make_snapshot(trainer)

    def _make_snapshot(self, trainer):
        target = trainer if self._target is None else self._target
        collector = _Collector(copy=self._copy_arrays)
        collector.save(target)
        self.writer(self._format(trainer), trainer.out, collector.target)

    def _format(self, trainer):
        filename = self.filename
        if callable(filename):
            name = filename(trainer)
            if not isinstance(name, str):
                raise TypeError(
                    f"the filename callable returned {name!r}; it must return a str"
                )
            return name
        try:
            return filename.format(trainer)
        except (AttributeError, IndexError, KeyError) as exc:
            raise ValueError(
                f"cannot format snapshot filename {filename!r} with the trainer: "
                f"{exc!r}; fields must start with the trainer, e.g. "
                "'{.updater.iteration}'"
            ) from exc

    def finalize(self):
        """Waits for the writer to finish pending snapshots."""
        finalize = getattr(self.writer, "finalize", None)
        if finalize is not None:
            finalize()


class _SerializedTarget(dict):
    """Flat ``{'path/to/key': value}`` dict of a serialized object.

    Writers hand it to ``savefun`` (``save_npz(path, target)``); its
    ``serialize`` method replays the entries into any serializer.
    """

    def serialize(self, serializer):
        for key, value in self.items():
            *parents, name = key.split("/")
            s = serializer
            for parent in parents:
                s = s[parent]
            s(name, value)


class _Collector(serializer_module.Serializer):
    """Serializer recording host copies of an object's values in a flat dict."""

    def __init__(self, target=None, path="", copy=False):
        self.target = _SerializedTarget() if target is None else target
        self.path = path
        self.copy = copy

    def __getitem__(self, key):
        return _Collector(self.target, self.path + key.strip("/") + "/", self.copy)

    def __call__(self, key, value):
        ret = value
        if isinstance(value, variable.Variable):
            value = value.array
        if isinstance(value, numpy.ndarray):
            if self.copy:
                value = value.copy()
        elif value is not None and backend.is_array_supported(value):
            value = backend.CpuDevice().send(value)
        self.target[self.path + key.lstrip("/")] = value
        return ret


class _FilePattern:
    """Which files of a directory a snapshot filename template can produce."""

    def __init__(self, template):
        formatter = string.Formatter()
        try:
            list(formatter.parse(template))
        except ValueError as exc:
            raise ValueError(
                f"invalid snapshot filename template {template!r}: {exc}"
            ) from exc
        self.template = template
        self.subdir = ""
        self.regex = None
        head, tail = os.path.split(template)
        try:
            head_parts = list(formatter.parse(head))
            tail_parts = list(formatter.parse(tail))
        except ValueError:
            return  # a field spans the separator: no fixed directory
        if any(field is not None for _, field, _, _ in head_parts):
            return
        self.subdir = "".join(literal for literal, _, _, _ in head_parts)
        pieces = []
        for literal, field, _, _ in tail_parts:
            pieces.append(re.escape(literal))
            if field is not None:
                pieces.append(".+")
        self.regex = re.compile("".join(pieces))

    def find(self, outdir, newest_first=False):
        """Lists matching files as paths, oldest first (by mtime, then name)."""
        found = self.find_with_mtimes(outdir)
        if newest_first:
            found.reverse()
        return [path for _, path in found]

    def find_with_mtimes(self, outdir):
        """Lists ``(mtime, path)`` of matching files, oldest first."""
        directory = os.path.join(outdir, self.subdir)
        try:
            entries = list(os.scandir(directory))
        except (FileNotFoundError, NotADirectoryError):
            return []
        found = []
        for entry in entries:
            name = entry.name
            if _TEMPORARY_NAME.match(name) or not self.regex.fullmatch(name):
                continue
            try:
                if not entry.is_file():
                    continue
                stat = entry.stat()
            except FileNotFoundError:
                continue
            found.append(
                (stat.st_mtime_ns, _natural_key(name), stat.st_mtime, entry.path)
            )
        found.sort()
        return [(mtime, path) for _, _, mtime, path in found]


# Chainer 7's private helpers of the same search, which code written for it
# (and its tests) import; they take the file name template directly.
def _find_snapshot_files(fmt, path):
    """Returns ``(mtime, name)`` of the snapshots ``fmt`` names under ``path``.

    Args:
        fmt (str): File name template of the snapshots, such as
            ``'snapshot_iter_{.updater.iteration}'``.
        path (str): Directory to search.

    Returns:
        list: ``(mtime, file name)`` pairs, oldest first.
    """
    pattern = _FilePattern(fmt)
    if pattern.regex is None:
        return []
    return [
        (mtime, os.path.relpath(file, path))
        for mtime, file in pattern.find_with_mtimes(path)
    ]


def _find_latest_snapshot(fmt, path):
    """Returns the file name of the newest snapshot, or ``None`` if none.

    Args:
        fmt (str): File name template of the snapshots.
        path (str): Directory to search.

    Returns:
        str or None: The name, relative to ``path``.
    """
    files = _find_snapshot_files(fmt, path)
    return files[-1][1] if files else None


def _find_stale_snapshots(fmt, path, n_retains):
    """Yields the file names of all but the newest ``n_retains`` snapshots.

    Args:
        fmt (str): File name template of the snapshots.
        path (str): Directory to search.
        n_retains (int): Number of newest snapshots to keep out.

    Yields:
        str: Names of the stale snapshots, relative to ``path``, oldest first.
    """
    files = _find_snapshot_files(fmt, path)
    for _, name in files[: max(len(files) - n_retains, 0)]:
        yield name


def _natural_key(name):
    # Ties in mtime (coarse file-system clocks) are broken by the name with
    # its numbers compared as numbers: 'iter_10' is newer than 'iter_9'.
    return tuple(
        (1, int(part), "") if part.isdigit() else (0, 0, part)
        for part in re.split(r"(\d+)", name)
    )


class _Retention:
    """Cleanup hook removing all but the newest ``n_retains`` snapshots."""

    def __init__(self, pattern, outdir, n_retains):
        self.pattern = pattern
        self.outdir = outdir
        self.n_retains = n_retains

    def __call__(self):
        files = self.pattern.find(self.outdir)
        for path in files[: max(len(files) - self.n_retains, 0)]:
            try:
                os.remove(path)
            except FileNotFoundError:
                pass


def _load_if_readable(path, target):
    """Loads a snapshot file into ``target``; skips (warns, returns False) a bad one."""
    try:
        with open(path, "rb") as f:
            magic = f.read(8)
        if magic.startswith(_ZIP_MAGIC):
            # testzip reads every member and checks its CRC: a truncated or
            # damaged archive is caught before anything is loaded.
            with zipfile.ZipFile(path) as zf:
                bad = zf.testzip()
            if bad is not None:
                raise ValueError(f"member {bad!r} is corrupted")
            loadfun = serializers.load_npz
        elif magic == _HDF5_MAGIC:
            loadfun = serializers.load_hdf5
        else:
            raise ValueError("it is neither an NPZ nor an HDF5 file")
    except _CORRUPTION_ERRORS as exc:
        warnings.warn(
            f"snapshot autoload: skipping {path!r}, which cannot be read ({exc})",
            RuntimeWarning,
        )
        return False
    if loadfun is serializers.load_hdf5:
        try:
            loadfun(path, target)
        except OSError as exc:
            # h5py refuses to open a truncated file before anything is read.
            warnings.warn(
                f"snapshot autoload: skipping {path!r}, which cannot be read ({exc})",
                RuntimeWarning,
            )
            return False
        return True
    loadfun(path, target)
    return True
