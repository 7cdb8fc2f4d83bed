"""CUDA support for Chainer, built on CuPy (the ``'@cupy:N'`` backend).

Importing this package is cheap and never touches the CUDA driver: whether CUDA
is usable is decided on the first call of :func:`is_available` (or of anything
that needs a GPU) and remembered. CUDA counts as available when CuPy imports and
at least one CUDA device is usable.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading

__version__ = "7.9.0"

# chainer-cuda is installed when this runs, so the CuPy wheel of its extras
# (cuda12, cuda13) is the part missing; those wheels are on PyPI today.
_INSTALL_CUPY = (
    "pip install cupy-cuda12x (CUDA 12.x) or cupy-cuda13x (CUDA 13.x), the "
    "CuPy of the extras 'chainer-cuda[cuda12]' and 'chainer-cuda[cuda13]'"
)
_lock = threading.Lock()
# (cupy module or None, reason it is unusable or None), once probed.
_probe_result: tuple | None = None


def _probe() -> tuple:
    global _probe_result
    if _probe_result is not None:
        return _probe_result
    with _lock:
        if _probe_result is None:
            _probe_result = _find_cupy()
    return _probe_result


def _find_cupy() -> tuple:
    if importlib.util.find_spec("cupy") is None:
        return None, f"CuPy is not installed; install it with {_INSTALL_CUPY}"
    try:
        cupy = importlib.import_module("cupy")
    except Exception as exc:  # a broken CuPy install raises anything
        return None, (
            f"CuPy is installed but cannot be imported ({type(exc).__name__}: "
            f"{exc}); reinstall it with {_INSTALL_CUPY}"
        )
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError without a driver or device
        return cupy, f"CuPy is installed but no CUDA device is usable: {exc}"
    if count < 1:
        return cupy, "CuPy is installed but no CUDA device is usable: none was found"
    return cupy, None


def is_available() -> bool:
    """Returns whether CUDA can be used: CuPy imports and a device is usable.

    Returns:
        bool: True when at least one CUDA device can be used through CuPy.
    """
    return _probe()[1] is None


def unavailable_reason() -> str | None:
    """Says why CUDA cannot be used, or None when it can.

    Returns:
        str or None: A message naming what is missing (CuPy, or a usable
        driver/device, with the CUDA error), or None if CUDA is available.
    """
    reason = _probe()[1]
    if reason is None:
        return None
    return f"CUDA is not available to chainer-cuda: {reason}"


def check_available() -> None:
    """Raises a RuntimeError naming what is missing unless CUDA is available.

    Raises:
        RuntimeError: CuPy is not installed, cannot be imported, or finds no
            usable CUDA device.
    """
    reason = unavailable_reason()
    if reason is not None:
        raise RuntimeError(reason)


def get_cupy():
    """Returns the ``cupy`` module once CUDA is known to be usable.

    Returns:
        module: ``cupy``.

    Raises:
        RuntimeError: CUDA is not available (see :func:`check_available`).
    """
    check_available()
    return _probe()[0]


def get_nccl():
    """Returns CuPy's NCCL bindings (``cupy.cuda.nccl``) once CUDA is usable.

    chainer-mn's GPU communicators reach NCCL through this function.

    Returns:
        module: ``cupy.cuda.nccl``.

    Raises:
        RuntimeError: CUDA is not available (see :func:`check_available`),
            or this CuPy cannot use NCCL.
    """
    get_cupy()
    try:
        nccl = importlib.import_module("cupy.cuda.nccl")
    except ImportError as exc:
        raise RuntimeError(
            f"CuPy cannot use NCCL ({exc}); install NCCL for your CUDA version "
            "(e.g. pip install nvidia-nccl-cu12)"
        ) from exc
    if not getattr(nccl, "available", True):
        raise RuntimeError(
            "CuPy reports that NCCL is not available; install NCCL for your "
            "CUDA version (e.g. pip install nvidia-nccl-cu12)"
        )
    return nccl
