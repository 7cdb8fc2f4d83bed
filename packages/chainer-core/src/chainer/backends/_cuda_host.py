"""``chainer.backends.cuda`` where CUDA is not usable (private to chainer-core).

The facade :mod:`chainer.backends.cuda` answers from this module while no
registered ``cupy`` backend provides a working implementation: ``available``
is False, the helpers that make sense for NumPy arrays work on them
(``to_cpu``, ``get_array_module``, ``get_device_from_array``, ``memoize``,
``fuse``...), and the ones that need a GPU raise a ``RuntimeError`` with
:data:`unavailable_reason`.
"""

from __future__ import annotations

import functools

import numpy

from chainer import backend
from chainer import configuration
from chainer.backends import _dummy_device
from chainer.utils import install_hint

config = configuration.config
DummyDeviceType = _dummy_device.DummyDeviceType
DummyDevice = _dummy_device.DummyDevice

#: The message of the ``RuntimeError`` that GPU-only entry points raise.
DEFAULT_REASON = (
    "CUDA environment is not available: on a machine with an NVIDIA GPU, "
    "install the chainer-cuda distribution with the CuPy for its CUDA version: "
    f"{install_hint.install_hint('chainer-cuda', 'cuda12')}; for CUDA 13.x use "
    "the extra cuda13"
)
#: Why CUDA is unusable: :data:`DEFAULT_REASON`, or what the registered
#: ``cupy`` backend says is missing (see :func:`set_unavailable_reason`).
unavailable_reason = DEFAULT_REASON
available = False


def set_unavailable_reason(reason: str | None) -> None:
    """Sets the message GPU-only entry points raise (None: the default one).

    Args:
        reason (str or None): What is missing, as the CUDA backend words it.
    """
    global unavailable_reason
    unavailable_reason = DEFAULT_REASON if reason is None else reason


def check_cuda_available() -> None:
    """Raises ``RuntimeError`` if CUDA (CuPy through chainer-cuda) is unusable."""
    if not available:
        raise RuntimeError(unavailable_reason)


class Device:
    """A CUDA device (``cupy.cuda.Device``); needs chainer-cuda and CuPy.

    Args:
        device (int): Device id.
    """

    def __init__(self, device=None):
        check_cuda_available()


class Stream:
    """A CUDA stream (``cupy.cuda.Stream``); needs chainer-cuda and CuPy."""

    def __init__(self):
        check_cuda_available()


class Event:
    """A CUDA event (``cupy.cuda.Event``); needs chainer-cuda and CuPy."""

    def __init__(self):
        check_cuda_available()


class ndarray:
    """Stand-in type for ``cupy.ndarray``: no object is ever an instance."""

    def __init__(self):
        check_cuda_available()


class _UnavailableCupy:
    # ``cupy`` when CUDA is unusable: not None (as in Chainer 7, so
    # ``cuda.cupy is not None`` holds and ``xp is cuda.cupy`` is simply
    # False), and any attribute says what to install.

    __slots__ = ()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"cupy.{name}: {unavailable_reason}")

    def __repr__(self):
        return "<cupy (not available)>"


GpuDevice = backend.GpuDevice
#: The ``cupy`` module; a placeholder object when CUDA is not available.
cupy = _UnavailableCupy()
cudnn = None
cudnn_enabled = False
_max_workspace_size = 8 * 1024 * 1024


def get_array_module(*args):
    """Returns ``numpy`` or ``cupy`` for the given arrays (see chainer.backend)."""
    return backend.get_array_module(*args)


def to_cpu(array, stream=None):
    """Copies an array (or nested lists/tuples of arrays) to host memory.

    Args:
        array: A NumPy/CuPy array, a Variable's array, a scalar, None or a
            list/tuple of them.
        stream: Ignored on the CPU.

    Returns:
        The NumPy counterpart.
    """
    if array is None:
        return None
    if isinstance(array, (list, tuple)):
        return type(array)(to_cpu(a, stream) for a in array)
    if isinstance(array, numpy.ndarray):
        return array
    if numpy.isscalar(array):
        return numpy.asarray(array)
    if backend.is_array_supported(array):
        return backend.CpuDevice().send(array)
    raise TypeError(
        "The array sent to cpu must be numpy.ndarray or cupy.ndarray, "
        f"or a NumPy scalar. Actual type: {type(array)}."
    )


def to_gpu(array, device=None, stream=None):
    """Copies an array to a GPU; needs chainer-cuda and CuPy."""
    check_cuda_available()


def copy(array, out=None, out_device=None, stream=None):
    """Copies a CuPy array between devices; needs chainer-cuda and CuPy."""
    check_cuda_available()


def get_device_from_id(device_id):
    """Returns :data:`DummyDevice` for ``None``; a GPU id needs CuPy."""
    if device_id is None:
        return DummyDevice
    check_cuda_available()


def get_device_from_array(*arrays):
    """Returns :data:`DummyDevice` for NumPy arrays (they live on the host)."""
    for arr in arrays:
        if arr is not None and not isinstance(arr, (numpy.ndarray, numpy.generic)):
            check_cuda_available()
    return DummyDevice


def get_device(*args):
    """Deprecated legacy lookup; returns :data:`DummyDevice` for host arrays."""
    for arg in args:
        if isinstance(arg, int) and arg >= 0:
            check_cuda_available()
    return get_device_from_array(*[a for a in args if not isinstance(a, int)])


def elementwise(in_params, out_params, operation, name, **kwargs):
    """Creates a CuPy elementwise kernel; needs chainer-cuda and CuPy."""
    check_cuda_available()


def reduce(
    in_params,
    out_params,
    map_expr,
    reduce_expr,
    post_map_expr,
    identity,
    name,
    **kwargs,
):
    """Creates a CuPy reduction kernel; needs chainer-cuda and CuPy."""
    check_cuda_available()


def raw(code, name, *args, **kwargs):
    """Creates a CuPy raw kernel; needs chainer-cuda and CuPy."""
    check_cuda_available()


def memoize(for_each_device=False):
    """Decorator memoizing a function's results by its arguments.

    Without CUDA this is a plain pass-through wrapper (CuPy's memo is per
    device; host code has no device to key on).
    """

    def decorator(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            return f(*args, **kwargs)

        return wrapper

    return decorator


def clear_memo():
    """Clears CuPy's memo; nothing to clear without CUDA."""


def fuse(*args, **kwargs):
    """Kernel fusion decorator; without CUDA the function runs unfused on NumPy."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


def get_max_workspace_size():
    """Returns the cuDNN workspace size limit in bytes."""
    return _max_workspace_size


def set_max_workspace_size(size):
    """Sets the cuDNN workspace size limit in bytes."""
    global _max_workspace_size
    _max_workspace_size = int(size)


def should_use_cudnn(level, lowest_version=0):
    """Returns whether cuDNN should be used; always False without CUDA."""
    if level not in ("always", "auto", "never", ">=auto", "==always"):
        raise ValueError(f"invalid cuDNN level: {level!r}")
    return False


def should_use_cudnn_tensor_core(dtype):
    """Returns whether cuDNN tensor cores should be used; False without CUDA."""
    return False


def get_cudnn_dropout_states():
    """cuDNN dropout states; needs chainer-cuda and CuPy."""
    check_cuda_available()


def get_cudnn_dropout_states_core(thread_id):
    """cuDNN dropout states of one thread; needs chainer-cuda and CuPy."""
    check_cuda_available()
