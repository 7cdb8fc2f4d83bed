"""Writing files atomically: the one implementation every saver of Chainer uses.

This module is an extension of this project, not part of Chainer 7's API.
The serializers (``save_npz``, ``save_hdf5``), snapshot writers, reporting
extensions, dataset downloads and caches, the Caffe exporter and the pickle
dataset writer all write through it, so they follow the same rules:

* A regular file (or a path that does not exist yet) is written to a
  temporary file in the same directory, named ``tmp.<12 hex digits>.<name>``
  (the final name stays the suffix, so a saver that picks its format from
  the extension still sees it). While it is written the temporary file holds
  an advisory lock: an open-file-description record lock (``F_OFD_SETLK``)
  on Linux, a POSIX record lock (``lockf``) elsewhere; not ``flock``, which
  HDF5 takes on the file it writes. When the writer succeeds the file is
  synced to disk, given the mode of the file it replaces (and its owner and
  group, where the process may set them), renamed over the final path with
  ``os.replace``, and the directory is synced. Readers see the old file or
  the new one in full, never a partial one; on an error the temporary file
  is removed and the old file is untouched.
* A symbolic link is resolved: the file it points to is replaced, the link
  stays a link.
* A FIFO, a character or block device or any other file that is not a
  regular file (``/dev/null``, ``/dev/stdout``) is written directly, without
  a temporary file; such a write is not atomic.
* Writing to a temporary file of this module that this process is writing
  (a saver called by another saver, such as ``save_npz`` called by a
  snapshot writer) writes it directly too: one temporary file per save.
* Before it creates a temporary file, a save removes the stale ones in the
  same directory (:func:`remove_stale`): files of this naming, or of the
  serializers' former ``.<name>.<12 hex digits>.tmp`` naming, older than the
  current process and locked by nobody. A write killed at any point
  therefore leaves at most one temporary file, removed by the next save in
  that directory.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import shutil
import stat
import struct
import threading
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # None marks "no locks" (Windows)

# ``tmp.<12 hex digits>.<final name>``; ``_snapshot`` skips the same shape
# when it looks for snapshots.
_TEMPORARY_NAME = re.compile(r"tmp\.[0-9a-f]{12}\.", re.ASCII)
# What the serializers wrote before this module existed.
_FORMER_NAME = re.compile(r"\..+\.[0-9a-f]{12}\.tmp\Z", re.ASCII | re.DOTALL)
# Time the module was imported: the process start where /proc cannot say.
_IMPORT_TIME = time.time()

_active: set[str] = set()  # temporary files this process is writing (real paths)
_active_lock = threading.Lock()
_start_time: float | None = None


def is_temporary_name(name):
    """Tells whether a file name is one of this module's temporary names.

    Args:
        name (str): A file name (without directory).

    Returns:
        bool: ``True`` for ``tmp.<12 hex digits>.<name>`` (and the
        serializers' former ``.<name>.<12 hex digits>.tmp``).
    """
    return bool(_TEMPORARY_NAME.match(name) or _FORMER_NAME.match(name))


class AtomicFile:
    """A file written under a temporary name and renamed into place on commit.

    Creating it resolves ``path`` (see the module's rules), removes stale
    temporary files of its directory and creates (and locks) the temporary
    file; the caller writes :attr:`path` and then calls :meth:`commit`, or
    :meth:`discard` to drop what was written. As a context manager it
    commits when the block ends normally and discards on an exception.

    Args:
        path (str or os.PathLike): The file to write.

    Attributes:
        path (str): Where to write: the temporary file, or the final file
            itself when it is written directly (a FIFO, a device).
        target (str): The final file (symbolic links resolved).
        direct (bool): ``True`` when :attr:`path` is the final file.
    """

    def __init__(self, path):
        name = os.fsdecode(os.fspath(path))
        self.target = os.path.realpath(name)
        self.path = self.target
        self.direct = True
        self._fd = None
        with _active_lock:
            if self.target in _active:
                return
        try:
            info = os.stat(self.target)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(
                errno.EISDIR, f"cannot write {name!r}: it is a directory", name
            )
        if info is not None and not stat.S_ISREG(info.st_mode):
            return
        directory, base = os.path.split(self.target)
        remove_stale(directory)
        temp = os.path.join(directory, f"tmp.{secrets.token_hex(6)}.{base}")
        try:
            # 0o666: the umask decides, as for any new file (mkstemp would
            # make it private to its owner).
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileNotFoundError:
            raise FileNotFoundError(
                errno.ENOENT,
                f"cannot write {name!r}: directory {directory!r} does not exist",
                name,
            ) from None
        # A file system without locks (some network ones) still gets the
        # file: only a save older than the cleaner looks stale there.
        with contextlib.suppress(OSError):
            _lock(fd, exclusive=True)
        self._fd = fd
        self.path = temp
        self.direct = False
        with _active_lock:
            _active.add(temp)

    def commit(self):
        """Syncs the temporary file and renames it over the target.

        The target's mode (and owner and group, where permitted) carry over;
        the directory is synced after the rename. Nothing to do for a file
        written directly. On an error the temporary file is removed.
        """
        if self._fd is None:
            return
        try:
            _fsync(self.path)
            _copy_owner_and_mode(self.target, self.path)
            os.replace(self.path, self.target)
        except BaseException:
            self.discard()
            raise
        self._release()
        _fsync(os.path.dirname(self.target), directory=True)

    def discard(self):
        """Removes the temporary file; the target stays as it was."""
        if self._fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        self._release()

    def _release(self):
        fd, self._fd = self._fd, None
        with _active_lock:
            _active.discard(self.path)
        os.close(fd)  # releases the lock

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if exc_type is None:
            self.commit()
        else:
            self.discard()


@contextlib.contextmanager
def atomic_path(path):
    """Yields the path to write so that ``path`` is replaced atomically.

    When the ``with`` block ends normally the file written at the yielded
    path replaces ``path`` (see :class:`AtomicFile` and the module's rules);
    on an exception ``path`` is left untouched.

    Args:
        path (str or os.PathLike): The file to write.

    Yields:
        str: Path of the temporary file (or of ``path`` itself, resolved, for
        a FIFO or a device), which exists and is empty.
    """
    with AtomicFile(path) as f:
        yield f.path


@contextlib.contextmanager
def open_atomic(path, mode="wb", encoding=None, newline=None):
    """Opens a file whose content replaces ``path`` atomically on success.

    Args:
        path (str or os.PathLike): The file to write.
        mode (str): ``'wb'`` for bytes or ``'w'`` for text.
        encoding (str): Encoding of a text file (``None``: the locale's).
        newline (str): Newline translation of a text file, as for
            :func:`open`.

    Yields:
        The open file; it is flushed, synced and closed when the block ends.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"open_atomic mode must be 'w' or 'wb', not {mode!r}")
    with AtomicFile(path) as atomic:
        if mode == "wb":
            f = open(atomic.path, "wb")  # noqa: SIM115
        else:
            f = open(atomic.path, "w", encoding=encoding, newline=newline)  # noqa: SIM115
        with f:
            yield f
            f.flush()
            if not atomic.direct:
                os.fsync(f.fileno())


def remove_stale(directory, prefixes=()):
    """Removes the stale temporary files of this module in ``directory``.

    A temporary file (:func:`is_temporary_name`) is stale when it was last
    modified before the current process started and no process holds its
    lock: the save that wrote it was killed. Every save through this module
    calls this function on its directory first; errors (a directory that
    cannot be read, a file that cannot be removed) are ignored.

    Args:
        directory (str or os.PathLike): The directory to clean.
        prefixes (tuple of str): Name prefixes of other temporary files or
            directories of the caller's own, removed under the same rule (a
            directory when it, unlocked, and every file in it are stale).

    Returns:
        list of str: Paths removed.
    """
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        try:
            if is_temporary_name(name):
                if entry.is_file(follow_symlinks=False) and _remove_if_stale(
                    entry.path
                ):
                    removed.append(entry.path)
            elif prefixes and name.startswith(tuple(prefixes)):
                if entry.is_dir(follow_symlinks=False):
                    if _directory_is_stale(entry.path):
                        shutil.rmtree(entry.path)
                        removed.append(entry.path)
                elif entry.is_file(follow_symlinks=False) and _remove_if_stale(
                    entry.path
                ):
                    removed.append(entry.path)
        except OSError:
            continue
    return removed


def _process_start():
    # When this process started (seconds since the epoch): from /proc on
    # Linux (to a clock tick), else the import of this module (later).
    global _start_time
    if _start_time is None:
        start = _IMPORT_TIME
        try:
            with open("/proc/self/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            # Field 22 (starttime, clock ticks after boot) is the 20th after
            # the command name.
            since_boot = int(fields[19]) / os.sysconf("SC_CLK_TCK")
            uptime = time.clock_gettime(time.CLOCK_BOOTTIME)
            start = min(start, time.time() - uptime + since_boot)
        except (OSError, ValueError, IndexError, AttributeError):
            pass
        _start_time = start
    return _start_time


def _remove_if_stale(path):
    # Removes ``path`` if it is an old regular file nobody has locked.
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode) or info.st_mtime >= _process_start():
        return False
    if fcntl is None:  # pragma: no cover - Windows cannot remove an open file
        os.unlink(path)
        return True
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        try:
            _lock(fd, exclusive=False)
        except OSError:
            return False
        # Removed while locked: a writer that locked it meanwhile is told
        # by the lock, not by a missing file.
        os.unlink(path)
        return True
    finally:
        os.close(fd)


def _directory_is_stale(path):
    # A directory is stale when it and every file in it are old and nobody
    # holds a lock on them (its writer may flock the directory itself).
    start = _process_start()
    if os.lstat(path).st_mtime >= start or _is_locked(path, directory=True):
        return False
    for root, _, files in os.walk(path):
        for name in files:
            file = os.path.join(root, name)
            info = os.lstat(file)
            if info.st_mtime >= start:
                return False
            if stat.S_ISREG(info.st_mode) and _is_locked(file):
                return False
    return True


def _is_locked(path, directory=False):
    if fcntl is None:  # pragma: no cover - Windows
        return False
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        if directory:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            _lock(fd, exclusive=False)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


# Linux's struct flock on 64-bit systems, for open-file-description locks.
_FLOCK_LAYOUT = "hhqqi4x"
_OFD_LOCKS = (
    fcntl is not None
    and hasattr(fcntl, "F_OFD_SETLK")
    and struct.calcsize(_FLOCK_LAYOUT) == 32
    and struct.calcsize("l") == 8
)


def _lock(fd, exclusive):
    # Takes a record lock on the whole file without waiting; raises OSError
    # if another holds a conflicting one. An OFD lock belongs to this
    # descriptor: other descriptors, even of this process, conflict with
    # it, and closing them does not release it. A classic POSIX lock (the
    # fallback) is the process's own, dropped when the process closes any
    # descriptor of the file.
    if _OFD_LOCKS:
        kind = fcntl.F_WRLCK if exclusive else fcntl.F_RDLCK
        request = struct.pack(_FLOCK_LAYOUT, kind, os.SEEK_SET, 0, 0, 0)
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, request)
    else:
        fcntl.lockf(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)


def _fsync(path, directory=False):
    flags = os.O_RDONLY
    if directory:
        # Directories cannot be opened (nor synced) on Windows.
        if not hasattr(os, "O_DIRECTORY"):
            return
        flags |= os.O_DIRECTORY
    try:
        fd = os.open(path or ".", flags)
    except OSError:
        if directory:
            return
        raise
    try:
        os.fsync(fd)
    except OSError:
        # Some file systems refuse to sync a directory; the rename itself
        # is still atomic there.
        if not directory:
            raise
    finally:
        os.close(fd)


def _copy_owner_and_mode(target, temp):
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(info.st_mode):
        return
    if hasattr(os, "chown"):
        mine = os.stat(temp)
        if (mine.st_uid, mine.st_gid) != (info.st_uid, info.st_gid):
            try:
                os.chown(temp, info.st_uid, info.st_gid)
            except OSError:
                # Only root may give a file away; keep the group if allowed.
                with contextlib.suppress(OSError):
                    os.chown(temp, -1, info.st_gid)
    # After chown, which may clear the set-id bits.
    os.chmod(temp, stat.S_IMODE(info.st_mode))
