"""Keeps freed host memory for reuse, so that large arrays do not page-fault.

NumPy takes every array from the C library's ``malloc``. glibc serves large
blocks with fresh ``mmap`` pages and hands the top of its heap back to the
system once more than its trim threshold is free there. A train step frees
its large temporaries (patch matrices, activations, gradients) and allocates
them again on the next step, so with glibc's defaults every step touches
fresh pages: about 9 MB of page faults per LeNet-style step (batch 64), a
fifth of the step's time, and 30 MB per VGG-style step.

Chainer therefore asks glibc to keep up to ``retention`` bytes of freed heap
(``M_TRIM_THRESHOLD``) and to serve blocks of up to 32 MiB from the heap
(``M_MMAP_THRESHOLD``, glibc's own ceiling for its adaptive threshold), much
as CuPy's memory pool keeps freed GPU memory. The process then holds up to
``retention`` bytes more than it uses. Elsewhere (other C libraries, other
systems) nothing is changed.

``import chainer`` leaves ``malloc`` alone unless
``CHAINER_HOST_MEMORY_RETENTION`` holds a number of bytes: the default
retention is applied at the first use of the kernels that churn large
temporaries (the first NumPy convolution, through
``chainer.utils._parallel.engage``), or at once by
:func:`set_host_memory_retention`.
"""

import ctypes
import os

#: Freed heap kept for reuse by default (bytes).
DEFAULT_RETENTION = 256 << 20

_ENV = "CHAINER_HOST_MEMORY_RETENTION"
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 32 << 20
_GLIBC_DEFAULT_THRESHOLD = 128 << 10  # both thresholds' static default

_state = {"retention": None}


def _mallopt():
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 (raises AttributeError off glibc)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):  # TypeError: Windows' CDLL(None)
        return None
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt


def set_host_memory_retention(nbytes):
    """Sets how much freed host memory the process keeps for reuse.

    Args:
        nbytes (int): Bytes of freed heap that glibc keeps instead of giving
            them back to the system (at most ``2**31 - 1``). ``0`` restores
            glibc's static defaults (128 KiB thresholds).

    Returns:
        bool: ``True`` if the setting took effect, ``False`` where the C
        library is not glibc (nothing is changed there).

    Raises:
        TypeError: If ``nbytes`` is not an integer.
        ValueError: If ``nbytes`` is negative or too large.
    """
    if isinstance(nbytes, bool) or not isinstance(nbytes, int):
        raise TypeError(
            f"host memory retention must be an int (bytes), not {type(nbytes).__name__}"
        )
    if not 0 <= nbytes < 1 << 31:
        raise ValueError(
            f"host memory retention must be in [0, 2**31) bytes, got {nbytes}"
        )
    mallopt = _mallopt()
    if mallopt is None:
        return False
    mmap_threshold = _MMAP_THRESHOLD if nbytes else _GLIBC_DEFAULT_THRESHOLD
    trim_threshold = nbytes if nbytes else _GLIBC_DEFAULT_THRESHOLD
    if not (
        mallopt(_M_MMAP_THRESHOLD, mmap_threshold)
        and mallopt(_M_TRIM_THRESHOLD, trim_threshold)
    ):
        return False
    _state["retention"] = nbytes
    return True


def get_host_memory_retention():
    """Returns the retention set by Chainer (bytes), or ``None`` if untouched.

    ``None`` means glibc's own adaptive defaults are in force (or the C
    library is not glibc).
    """
    return _state["retention"]


def parse_environment():
    """Reads ``CHAINER_HOST_MEMORY_RETENTION``: bytes, or None for ``off``.

    An unset or empty variable, or ``default``, means :data:`DEFAULT_RETENTION`.

    Raises:
        ValueError: If the value is not a number of bytes in ``[0, 2**31)``,
            ``default`` or ``off``.
    """
    value = os.environ.get(_ENV, "").strip().lower()
    if value == "off":
        return None
    if value in ("", "default"):
        return DEFAULT_RETENTION
    try:
        nbytes = int(value)
    except ValueError:
        raise ValueError(
            f"{_ENV} must be a number of bytes, 'default' or 'off', got {value!r}"
        ) from None
    if not 0 <= nbytes < 1 << 31:
        raise ValueError(f"{_ENV} must be in [0, 2**31) bytes, got {nbytes}")
    return nbytes


def configure_from_environment(explicit_only=False):
    """Applies ``CHAINER_HOST_MEMORY_RETENTION`` (bytes; default 256 MiB).

    An empty value or ``default`` means the default; ``off`` leaves the C
    library untouched. A retention set earlier with
    :func:`set_host_memory_retention` is kept.

    Args:
        explicit_only (bool): Act only on a number of bytes given in the
            variable. ``import chainer`` calls it so: a value the user set is
            applied at once, the default waits for the first use of the
            kernels that need it (``chainer.utils._parallel.engage``).
    """
    nbytes = parse_environment()
    if nbytes is None or _state["retention"] is not None:
        return
    if explicit_only and os.environ.get(_ENV, "").strip().lower() in ("", "default"):
        return
    set_host_memory_retention(nbytes)
