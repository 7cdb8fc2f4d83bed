"""An exclusive lock on a file, shared by threads and processes."""

from __future__ import annotations

import contextlib
import os
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # None marks "no flock" (Windows)
    import msvcrt


@contextlib.contextmanager
def locked(path):
    """Holds an exclusive lock on ``path`` (created if missing) for the block.

    On POSIX this is ``flock`` on a fresh descriptor, which excludes other
    processes and other threads of this process alike, and is the same lock
    the ``filelock`` package takes, so Chainer 7 processes sharing a dataset
    root respect it. The lock is released when the descriptor is closed, even
    if the process dies.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:  # pragma: no cover - Windows
            while True:
                try:
                    msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                    break
                except OSError:
                    time.sleep(0.05)
        yield
    finally:
        os.close(fd)
