"""Dataset root, download cache and atomic creation of cached files.

The layout on disk is Chainer's, so caches made by Chainer are reused: the
root is ``$CHAINER_DATASET_ROOT`` (default ``~/.chainer/dataset``), downloads
live in ``<root>/_dl_cache/<md5 of the URL>`` and are guarded by the lock file
``<root>/_dl_cache/_dl_lock``.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.request

from chainer.dataset import _filelock

_dataset_root = None  # set by set_dataset_root; None: environment or default

_CHUNK = 1 << 20
_TIMEOUT = 60.0  # seconds of socket inactivity before a download fails
_HEX_LENGTHS = {"md5": 32, "sha256": 64}


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


def cached_download(url, *, sha256=None, md5=None):
    """Downloads a file and caches it.

    If there is no cache for ``url``, the file is downloaded to a temporary
    file in the cache directory, checked against the given digests, and
    renamed into place atomically. If a cache exists, its path is returned
    without downloading. Concurrent calls, in threads or processes, download
    the file once.

    Args:
        url (str): URL to download from.
        sha256 (str): Expected SHA-256 hex digest of the file, checked after
            the download (optional).
        md5 (str): Expected MD5 hex digest of the file, checked after the
            download (optional).

    Returns:
        str: Path to the downloaded file.
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
    cache_root = os.path.join(get_dataset_root(), "_dl_cache")
    os.makedirs(cache_root, exist_ok=True)
    urlhash = hashlib.md5(url.encode("utf-8"), usedforsecurity=False).hexdigest()
    cache_path = os.path.join(cache_root, urlhash)
    # A cache file only ever appears by an atomic rename, so if it exists it
    # is complete and needs no lock.
    if os.path.exists(cache_path):
        return cache_path
    with _filelock.locked(os.path.join(cache_root, "_dl_lock")):
        if os.path.exists(cache_path):
            return cache_path
        fd, temp_path = tempfile.mkstemp(prefix="_dl_tmp_", dir=cache_root)
        try:
            with os.fdopen(fd, "wb") as f:
                digests = _download(url, f, expected)
            for kind, digest in expected.items():
                if digests[kind] != digest:
                    raise ValueError(
                        f"{kind} checksum mismatch for {url}: expected {digest}, "
                        f"got {digests[kind]}"
                    )
            os.replace(temp_path, cache_path)
        except BaseException:
            if os.path.exists(temp_path):
                os.remove(temp_path)
            raise
    return cache_path


def _download(url, f, expected):
    hashers = {kind: hashlib.new(kind, usedforsecurity=False) for kind in expected}
    sys.stderr.write(f"Downloading from {url}...\n")
    sys.stderr.flush()
    try:
        with urllib.request.urlopen(url, timeout=_TIMEOUT) as response:
            length = response.headers.get("Content-Length")
            received = 0
            while True:
                chunk = response.read(_CHUNK)
                if not chunk:
                    break
                f.write(chunk)
                received += len(chunk)
                for hasher in hashers.values():
                    hasher.update(chunk)
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
    then renamed to ``path`` atomically. Simultaneous calls from several
    threads or processes are safe: the first finished file wins and nobody
    sees a partial one.

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
    temp_dir = tempfile.mkdtemp(prefix="_tmp_", dir=directory)
    try:
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
    return content
