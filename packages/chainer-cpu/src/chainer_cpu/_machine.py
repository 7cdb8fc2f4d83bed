"""What this machine's CPU reports about itself, read once at run time.

Kernel parameters that depend on the cache hierarchy (how many elements a
blocked loop keeps in cache) are derived from these figures rather than from
constants measured on one machine. On Linux they come from
``/sys/devices/system/cpu/cpu0/cache``; elsewhere, or when that is
unreadable, the documented fallbacks are used.
"""

import functools
import importlib.metadata
import os
import re

_CACHE_DIR = "/sys/devices/system/cpu/cpu0/cache"

#: Per-core data-cache sizes assumed when the machine does not report them
#: (bytes, by level): the smallest of current x86 server cores.
FALLBACK_CACHE_BYTES = {1: 32 << 10, 2: 1 << 20}


def _parse_size(text):
    # sysfs writes sizes as '48K', '2048K' or '32M'.
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text[:-1] if text[-1:] in "KMG" else text
    return int(digits) * scale


@functools.cache
def cache_bytes(level, root=_CACHE_DIR):
    """Size in bytes of the data (or unified) cache of ``level`` of one core.

    Args:
        level (int): Cache level (1, 2 or 3).
        root (str): The sysfs folder of one CPU's caches (for tests).

    Returns:
        int: The reported size, or ``FALLBACK_CACHE_BYTES[level]`` (1 MiB for
        levels above 2) when the machine reports none.
    """
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        entries = []
    for entry in entries:
        if not entry.startswith("index"):
            continue
        folder = os.path.join(root, entry)
        try:
            with open(os.path.join(folder, "level")) as f:
                found_level = int(f.read())
            with open(os.path.join(folder, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(folder, "size")) as f:
                size = _parse_size(f.read())
        except (OSError, ValueError):
            continue
        if found_level == level and kind in ("Data", "Unified") and size > 0:
            return size
    return FALLBACK_CACHE_BYTES.get(level, 1 << 20)


def installed_libraries(distributions, pattern):
    r"""Paths of the shared libraries that installed wheels ship.

    Args:
        distributions (tuple of str): Distribution names, looked up in order.
        pattern (str): Regular expression the whole lower-case file name must
            match (``libdnnl\.so\.3(\.\d+)*``, for instance).

    Returns:
        list of str: Matching files of those distributions that are
        installed, shortest path first (``libx.so.3`` before ``libx.so.3.2``).
    """
    paths = []
    for name in distributions:
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        for file in dist.files or ():
            if re.fullmatch(pattern, file.name.lower()):
                paths.append(os.path.normpath(str(dist.locate_file(file))))
    return sorted(set(paths), key=len)
