"""Dataset root, download cache and atomic creation of cached files.

The layout on disk is Chainer's, so caches made by Chainer are reused: the
root is ``$CHAINER_DATASET_ROOT`` (default ``~/.chainer/dataset``), downloads
live in ``<root>/_dl_cache/<md5 of the URL>``. Each cached file has its own
lock, one byte of the lock file ``<root>/_dl_cache/_dl_lock`` (a POSIX record
lock), so a stuck download blocks only the callers that want the same file,
and only until their deadline (``CHAINER_DOWNLOAD_TIMEOUT``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import http.client
import os
import shutil
import struct
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from chainer.dataset import _filelock
from chainer.utils import atomic_file

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # None marks "no record locks"

_dataset_root = None  # set by set_dataset_root; None: environment or default

_CHUNK = 1 << 20
_TIMEOUT = 60.0  # seconds of socket inactivity before a download fails
_DEFAULT_DEADLINE = 3600.0  # seconds a cached_download call may take
_POLL = 0.05  # seconds between two tries of a held lock
_HEX_LENGTHS = {"md5": 32, "sha256": 64}
# Temporary downloads of earlier versions (now ``tmp.*``, see atomic_file).
_FORMER_DOWNLOAD = "_dl_tmp_"
# Prefix of the directories in which cache_or_load_file's creators write.
_CREATOR_DIR = "_tmp_"

_locks_guard = threading.Lock()
_thread_locks: dict[tuple[str, int], threading.Lock] = {}  # of this process
_lock_files: dict[str, list[int]] = {}  # path -> [descriptor, users]


def get_dataset_root():
    """Gets the path to the root directory to download and cache datasets.

    It is the path given to :func:`set_dataset_root` if any, else the
    environment variable ``CHAINER_DATASET_ROOT``, else
    ``$HOME/.chainer/dataset``.

    Returns:
        str: The path to the dataset root directory.
    """
    if _dataset_root is not None:
        return _dataset_root
    root = os.environ.get("CHAINER_DATASET_ROOT")
    if root:
        return os.path.expanduser(root)
    return os.path.join(os.path.expanduser("~"), ".chainer", "dataset")


def set_dataset_root(path):
    """Sets the root directory to download and cache datasets.

    A path set by this function takes precedence over the
    ``CHAINER_DATASET_ROOT`` environment variable.

    Args:
        path (str or os.PathLike): Path to the new dataset root directory.
            ``None`` goes back to the environment variable or the default.
    """
    global _dataset_root
    if path is None:
        _dataset_root = None
        return
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"dataset root must be a path, got {type(path).__name__}")
    _dataset_root = os.fspath(path)


def get_dataset_directory(dataset_name, create_directory=True):
    """Gets the path to the directory of a given dataset.

    The directory is ``<dataset root>/<dataset_name>``; Chainer's own
    datasets use names like ``'pfnet/chainer/mnist'``.

    Args:
        dataset_name (str): Name of the dataset, a path relative to the root.
        create_directory (bool): If True (default), the directory is created
            when it does not exist.

    Returns:
        str: Path to the dataset directory.
    """
    if not isinstance(dataset_name, (str, os.PathLike)):
        raise TypeError(
            f"dataset_name must be a string, got {type(dataset_name).__name__}"
        )
    dataset_name = os.fspath(dataset_name)
    if os.path.isabs(dataset_name):
        raise ValueError(
            f"dataset_name must be relative to the dataset root, got {dataset_name!r}"
        )
    path = os.path.join(get_dataset_root(), dataset_name)
    if create_directory:
        os.makedirs(path, exist_ok=True)
    return path


def _check_digest(kind, value):
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{kind} must be a hex string, got {type(value).__name__}")
    value = value.lower()
    if len(value) != _HEX_LENGTHS[kind] or value.strip("0123456789abcdef"):
        raise ValueError(
            f"{kind} must be {_HEX_LENGTHS[kind]} hexadecimal digits, got {value!r}"
        )
    return value


def cached_download(url, *, sha256=None, md5=None, timeout=None):
    """Downloads a file and caches it.

    If there is no cache for ``url``, the file is downloaded to a temporary
    file in the cache directory (see :mod:`chainer.utils.atomic_file`),
    checked against the given digests, and renamed into place atomically. If
    a cache exists, its path is returned without downloading. Concurrent
    calls for one URL, in threads or processes, download the file once: each
    cached file has its own lock, so downloads of other files never wait.

    The whole call, waiting for another caller's download of the same file
    and then downloading, has a deadline: ``timeout`` seconds, by default
    the environment variable ``CHAINER_DOWNLOAD_TIMEOUT`` or else 3600. A
    server that trickles data is cut off there (the deadline is checked each
    time data arrives); a server silent for 60 seconds fails then anyway.

    Args:
        url (str): URL to download from.
        sha256 (str): Expected SHA-256 hex digest of the file, checked after
            the download (optional).
        md5 (str): Expected MD5 hex digest of the file, checked after the
            download (optional).
        timeout (float): Seconds the call may take (``math.inf``: no limit);
            ``None`` reads ``CHAINER_DOWNLOAD_TIMEOUT``.

    Returns:
        str: Path to the downloaded file.

    Raises:
        TimeoutError: The deadline passed while waiting for the lock (the
            message names the file and the process holding the lock) or
            while downloading; nothing is cached.
    """
    if not isinstance(url, str):
        raise TypeError(f"url must be a string, got {type(url).__name__}")
    expected = {
        kind: digest
        for kind, digest in (
            ("sha256", _check_digest("sha256", sha256)),
            ("md5", _check_digest("md5", md5)),
        )
        if digest is not None
    }
    timeout = _check_timeout(timeout)
    deadline = time.monotonic() + timeout
    cache_root = os.path.join(get_dataset_root(), "_dl_cache")
    os.makedirs(cache_root, exist_ok=True)
    urlhash = hashlib.md5(url.encode("utf-8"), usedforsecurity=False).hexdigest()
    cache_path = os.path.join(cache_root, urlhash)
    # A cache file only ever appears by an atomic rename, so if it exists it
    # is complete and needs no lock.
    if os.path.exists(cache_path):
        return cache_path
    lock_path = os.path.join(cache_root, "_dl_lock")
    with _locked(lock_path, urlhash, cache_path, url, deadline, timeout):
        if os.path.exists(cache_path):
            return cache_path
        atomic_file.remove_stale(cache_root, prefixes=(_FORMER_DOWNLOAD,))
        with atomic_file.AtomicFile(cache_path) as temp:
            with open(temp.path, "wb") as f:
                digests = _download(url, f, expected, deadline, timeout)
            for kind, digest in expected.items():
                if digests[kind] != digest:
                    raise ValueError(
                        f"{kind} checksum mismatch for {url}: expected {digest}, "
                        f"got {digests[kind]}"
                    )
    return cache_path


def _check_timeout(timeout):
    name = "timeout"
    if timeout is None:
        text = os.environ.get("CHAINER_DOWNLOAD_TIMEOUT", "").strip()
        if not text:
            return _DEFAULT_DEADLINE
        name = "CHAINER_DOWNLOAD_TIMEOUT"
        try:
            timeout = float(text)
        except ValueError:
            raise ValueError(
                f"CHAINER_DOWNLOAD_TIMEOUT must be a number of seconds, got {text!r}"
            ) from None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(
            f"timeout must be a number of seconds, got {type(timeout).__name__}"
        )
    if not timeout > 0:
        raise ValueError(f"{name} must be a positive number of seconds, got {timeout}")
    return float(timeout)


@contextlib.contextmanager
def _locked(lock_path, key, target, url, deadline, timeout):
    # Holds the lock of one cached file until the block ends: a byte of
    # ``lock_path`` (at an offset taken from ``key``) against other
    # processes, a threading.Lock against the other threads of this one.
    if fcntl is None:  # pragma: no cover - Windows: one lock for all
        with _filelock.locked(lock_path):
            yield
        return
    offset = int(key[:15], 16)
    with _locks_guard:
        thread_lock = _thread_locks.setdefault((lock_path, offset), threading.Lock())
    wait = min(max(deadline - time.monotonic(), 0), threading.TIMEOUT_MAX)
    if not thread_lock.acquire(timeout=wait):
        raise _lock_timeout(target, url, lock_path, os.getpid(), timeout)
    try:
        fd = _open_lock_file(lock_path)
        try:
            while True:
                try:
                    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
                    break
                except OSError as e:
                    if e.errno not in (errno.EACCES, errno.EAGAIN):
                        raise
                if time.monotonic() >= deadline:
                    holder = _lock_holder(fd, offset)
                    raise _lock_timeout(target, url, lock_path, holder, timeout)
                time.sleep(_POLL)
            try:
                yield
            finally:
                fcntl.lockf(fd, fcntl.LOCK_UN, 1, offset)
        finally:
            _close_lock_file(lock_path)
    finally:
        thread_lock.release()


def _open_lock_file(path):
    # One descriptor per lock file and process: closing any descriptor of a
    # file drops every record lock the process holds on it.
    with _locks_guard:
        entry = _lock_files.get(path)
        if entry is None:
            entry = [os.open(path, os.O_RDWR | os.O_CREAT, 0o666), 0]
            _lock_files[path] = entry
        entry[1] += 1
        return entry[0]


def _close_lock_file(path):
    with _locks_guard:
        entry = _lock_files[path]
        entry[1] -= 1
        if entry[1] == 0:
            del _lock_files[path]
            os.close(entry[0])


def _lock_holder(fd, offset):
    # The pid of the process holding the byte (F_GETLK), or None where the
    # layout of struct flock is unknown (it is Linux's on 64-bit systems).
    if not (sys.platform.startswith("linux") and sys.maxsize > 2**32):
        return None
    layout = "hhqqi"
    request = struct.pack(layout, fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)
    try:
        reply = fcntl.fcntl(fd, fcntl.F_GETLK, request + bytes(8))
    except OSError:
        return None
    kind, _, _, _, pid = struct.unpack_from(layout, reply)
    return None if kind == fcntl.F_UNLCK else pid


def _lock_timeout(target, url, lock_path, holder, timeout):
    who = "an unknown process" if holder is None else f"process {holder}"
    if holder == os.getpid():
        who = f"this process ({holder}, another thread)"
    return TimeoutError(
        f"gave up after {timeout:g} s waiting for the download lock of {target} "
        f"(from {url}; lock file {lock_path}), held by {who}; that download may "
        "be stuck on a slow server: stop it, or allow more time with the "
        "timeout argument or CHAINER_DOWNLOAD_TIMEOUT"
    )


def _download(url, f, expected, deadline, timeout):
    hashers = {kind: hashlib.new(kind, usedforsecurity=False) for kind in expected}
    sys.stderr.write(f"Downloading from {url}...\n")
    sys.stderr.flush()
    received = 0
    try:
        socket_timeout = min(_TIMEOUT, max(deadline - time.monotonic(), 0.001))
        with urllib.request.urlopen(url, timeout=socket_timeout) as response:
            length = response.headers.get("Content-Length")
            while True:
                # read1 returns what one receive got: a trickle still comes
                # back here, where the deadline is checked.
                chunk = response.read1(_CHUNK)
                if not chunk:
                    break
                f.write(chunk)
                received += len(chunk)
                for hasher in hashers.values():
                    hasher.update(chunk)
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"download of {url} did not finish within {timeout:g} s "
                        f"({received} bytes received); allow more time with the "
                        "timeout argument or CHAINER_DOWNLOAD_TIMEOUT"
                    )
    except OSError as e:
        if isinstance(e, urllib.error.HTTPError):
            # It holds the open connection; nobody reads the error page.
            e.close()
        e.add_note(f"while downloading {url}")
        raise
    except http.client.HTTPException as e:
        # A server that does not speak HTTP properly (a bad status line, a
        # connection cut in the headers): a network error like the others.
        raise OSError(f"bad HTTP response while downloading {url}: {e!r}") from e
    if length is not None and length.isdigit() and received != int(length):
        raise OSError(
            f"download of {url} is incomplete: got {received} of {length} bytes"
        )
    return {kind: hasher.hexdigest() for kind, hasher in hashers.items()}


def cache_or_load_file(path, creator, loader):
    """Caches a file if it does not exist, or loads it otherwise.

    If ``path`` exists, ``loader(path)`` is returned. Otherwise
    ``creator(temp_path)`` writes the file to a temporary path in the same
    directory (with the same base name, so extensions added by savers such
    as :func:`numpy.savez` still match) and returns the content; the file is
    then renamed to ``path`` atomically. The temporary path lies in a
    directory named ``_tmp_*``, locked while the creator runs; such
    directories left by a killed process are removed by the next call in
    the same directory (see :func:`chainer.utils.atomic_file.remove_stale`).
    Simultaneous calls from several threads or processes are safe: the first
    finished file wins and nobody sees a partial one.

    Args:
        path (str): Path to save the cached file.
        creator: Function that creates the file at the given temporary path
            (nothing exists there before the call) and returns the content.
        loader: Function that loads the cached file and returns the content.

    Returns:
        What the creator or the loader returned.

    Raises:
        RuntimeError: The dataset root (which holds the lock file) cannot
            be created.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a string, got {type(path).__name__}")
    if not callable(creator) or not callable(loader):
        raise TypeError("creator and loader must be callable")
    path = os.fspath(path)
    if os.path.exists(path):
        return loader(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    root = get_dataset_root()
    try:
        os.makedirs(root, exist_ok=True)
    except OSError as e:
        raise RuntimeError(
            f"cannot create the dataset directory {root!r} ({e}); set "
            "CHAINER_DATASET_ROOT or call chainer.dataset.set_dataset_root "
            "to use another"
        ) from e
    lock_path = os.path.join(root, "_create_lock")
    with _filelock.locked(lock_path):
        if os.path.exists(path):
            return loader(path)
    # The creator runs without the lock: it may itself need cached files
    # (e.g. a vocabulary), and holding the lock would deadlock that call.
    # It writes in a directory of its own, locked meanwhile, so that the
    # file keeps its final name; stale ones are removed first.
    atomic_file.remove_stale(directory, prefixes=(_CREATOR_DIR,))
    temp_dir = tempfile.mkdtemp(prefix=_CREATOR_DIR, dir=directory)
    dir_fd = os.open(temp_dir, os.O_RDONLY)
    try:
        if fcntl is not None:
            fcntl.flock(dir_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        temp_path = os.path.join(temp_dir, os.path.basename(path))
        content = creator(temp_path)
        if not os.path.exists(temp_path):
            raise RuntimeError(
                f"creator did not write the file at the path it was given "
                f"({temp_path}) while caching {path}"
            )
        with _filelock.locked(lock_path):
            if not os.path.exists(path):
                os.replace(temp_path, path)
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)
        os.close(dir_fd)
    return content
