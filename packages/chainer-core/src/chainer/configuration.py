"""Global and thread-local configuration (``chainer.config``, ``using_config``)."""

from __future__ import annotations

import contextlib
import sys
import threading
from typing import Any


class GlobalConfig:
    """The process-wide configuration object, ``chainer.global_config``.

    Entries are plain attributes. A thread-local override set through
    :class:`LocalConfig` (``chainer.config``) shadows the global value.
    """

    def show(self, file=sys.stdout):
        """Prints all entries in alphabetical order.

        Args:
            file: Output file-like object (default: ``sys.stdout``).
        """
        items = sorted(vars(self).items())
        width = max((len(k) for k, _ in items), default=0)
        for key, value in items:
            file.write(f"{key:<{width}} {value}\n")


_MISSING = object()


class LocalConfig:
    """Thread-local view of a :class:`GlobalConfig`, ``chainer.config``.

    Reading an entry returns the thread-local value if one was set, else the
    global one. Writing sets it for the current thread only.

    Args:
        global_config (GlobalConfig): The configuration it falls back to.
    """

    def __init__(self, global_config: GlobalConfig) -> None:
        object.__setattr__(self, "_global", global_config)
        object.__setattr__(self, "_local", threading.local())

    def __delattr__(self, name: str) -> None:
        delattr(self._local, name)

    def __getattr__(self, name: str) -> Any:
        # Only reached for names not set on the instance itself. A dict lookup
        # instead of getattr: a missed getattr raises, which costs ten times
        # more, and most reads (chainer.config.train) miss the local values.
        value = self._local.__dict__.get(name, _MISSING)
        if value is _MISSING:
            return getattr(self._global, name)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._local, name, value)

    def show(self, file=sys.stdout):
        """Prints the effective entries (local over global) in alphabetical order.

        Args:
            file: Output file-like object (default: ``sys.stdout``).
        """
        keys = set(vars(self._global)) | set(vars(self._local))
        width = max((len(k) for k in keys), default=0)
        for key in sorted(keys):
            file.write(f"{key:<{width}} {getattr(self, key)}\n")


global_config = GlobalConfig()
config = LocalConfig(global_config)

_MISSING = object()


@contextlib.contextmanager
def using_config(name: str, value: Any, config: LocalConfig = config):
    """Context manager that temporarily sets a thread-local configuration entry.

    Args:
        name (str): Name of the entry.
        value: Value to set during the ``with`` block.
        config (LocalConfig): Configuration to modify (default ``chainer.config``).

    Example:
        >>> import chainer
        >>> with chainer.using_config('train', False):
        ...     chainer.config.train
        False
    """
    local = config._local
    old = getattr(local, name, _MISSING)
    setattr(local, name, value)
    try:
        yield
    finally:
        if old is _MISSING:
            delattr(local, name)
        else:
            setattr(local, name, old)
