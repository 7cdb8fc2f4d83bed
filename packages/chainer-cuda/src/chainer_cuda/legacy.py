"""``chainer.backends.cuda`` on CuPy: the legacy CUDA utilities of Chainer.

chainer-core's facade finds this module through the documented attribute
:attr:`chainer_cuda._device.GpuDevice.legacy_cuda_module` of the registered
``cupy`` backend (it never names ``chainer_cuda``) and, when :data:`available`
is True, answers every attribute from here, so this module is the whole legacy
API for the CuPy case. When CUDA is unusable the facade keeps its host-side
helpers and raises :data:`unavailable_reason` for GPU-only calls. Module
imports carry a leading underscore so that they are not taken as public names.
"""

from __future__ import annotations

import numbers as _numbers
import os as _os
import threading as _threading
import warnings as _warnings

import numpy

import chainer_cuda as _chainer_cuda
from chainer import backend
from chainer import configuration
from chainer.backends import cuda as _facade
from chainer_cuda import _device

config = configuration.config
# The facade's own attributes (the same object whichever implementation
# answers), so that CuPy and host code agree on the host's device.
DummyDeviceType = _facade.DummyDeviceType
DummyDevice = _facade.DummyDevice
available = _chainer_cuda.is_available()
unavailable_reason = _chainer_cuda.unavailable_reason()
cupy = _chainer_cuda._probe()[0] if available else None
GpuDevice = backend.GpuDevice


def _find_cudnn():
    if cupy is None or _os.environ.get("CHAINER_CUDNN", "1") == "0":
        return None, 0
    try:
        from cupy import cudnn as cudnn_module
        from cupy.cuda import cudnn as cudnn_lib

        return cudnn_module, cudnn_lib.getVersion()
    except Exception:  # no cuDNN library: CuPy raises ImportError or RuntimeError
        return None, 0


cudnn, _cudnn_version = _find_cudnn()
cudnn_enabled = cudnn is not None
_max_workspace_size = 8 * 1024 * 1024
_SHOULD_USE_CUDNN = {
    "==always": {"always": True, "auto": False, "never": False},
    ">=auto": {"always": True, "auto": True, "never": False},
}

if available:
    # Kernels are built once per argument set and device (upload caching).
    _kernel_memo = cupy.memoize(for_each_device=True)
    Device = cupy.cuda.Device
    Stream = cupy.cuda.Stream
    Event = cupy.cuda.Event
    ndarray = cupy.ndarray
else:

    def _kernel_memo(f):
        return f


def check_cuda_available() -> None:
    """Raises ``RuntimeError`` naming what is missing if CUDA is unusable."""
    _chainer_cuda.check_available()


def _device_of(device):
    """Normalises a legacy device argument to a ``cupy.cuda.Device``."""
    if device is None:
        return cupy.cuda.Device()
    if isinstance(device, cupy.cuda.Device):
        return device
    if isinstance(device, bool):
        raise TypeError(f"invalid CUDA device: {device!r}")
    if isinstance(device, (int, numpy.integer)):
        if device < 0:
            raise ValueError(f"invalid CUDA device id {int(device)}: must be >= 0")
        return cupy.cuda.Device(int(device))
    chainer_device = backend.get_device(device)
    inner = getattr(chainer_device, "device", None)
    if not isinstance(inner, cupy.cuda.Device):
        raise ValueError(f"{device!r} is not a CUDA device")
    return inner


def get_device_from_id(device_id):
    """Returns the ``cupy.cuda.Device`` of an id, or :data:`DummyDevice` for None.

    Args:
        device_id (int or None): CUDA device id, or None for the host.

    Returns:
        cupy.cuda.Device or DummyDeviceType: The device.
    """
    if device_id is None:
        return DummyDevice
    check_cuda_available()
    if isinstance(device_id, bool) or not isinstance(device_id, (int, numpy.integer)):
        raise TypeError(
            f"device_id must be an int or None, not {type(device_id).__name__}"
        )
    return _device_of(device_id)


def _array_of(x):
    return x.array if getattr(x, "_is_chainer_variable", False) else x


def get_device_from_array(*arrays):
    """Returns the device of the first CuPy array, or :data:`DummyDevice`.

    Args:
        *arrays: Arrays (NumPy or CuPy) or Variables.

    Returns:
        cupy.cuda.Device or DummyDeviceType: The device holding the first CuPy
        array; :data:`DummyDevice` when there is none.
    """
    for array in arrays:
        array = _array_of(array)
        if isinstance(array, cupy.ndarray) and array.device is not None:
            return array.device
    return DummyDevice


def get_device(*args):
    """Returns a device from ids or arrays (deprecated legacy lookup).

    Use :func:`get_device_from_id` or :func:`get_device_from_array` instead.

    Args:
        *args: Device ids, ``cupy.cuda.Device`` objects or arrays; the first
            one that names a GPU decides.

    Returns:
        cupy.cuda.Device or DummyDeviceType: The device.
    """
    for arg in args:
        if arg is None or isinstance(arg, bool):
            continue
        if isinstance(arg, (int, numpy.integer)):
            return DummyDevice if arg < 0 else _device_of(arg)
        if isinstance(arg, cupy.cuda.Device):
            return arg
        device = get_device_from_array(arg)
        if device is not DummyDevice:
            return device
    return DummyDevice


def get_array_module(*args):
    """Returns ``cupy`` if any argument is a CuPy array (or Variable), else numpy.

    Args:
        *args: Arrays, Variables or other values.

    Returns:
        module: ``cupy`` or ``numpy``.
    """
    return backend.get_array_module(*args)


def to_gpu(array, device=None, stream=None):
    """Copies an array (or a list/tuple of arrays) to a GPU.

    Args:
        array: A NumPy or CuPy array, a NumPy scalar or Python number, None, or
            a list/tuple of them.
        device: Target device: an id, a ``cupy.cuda.Device``, a GPU
            :class:`~chainer.backend.Device`, or None for the current one.
        stream: Deprecated: a ``cupy.cuda.Stream`` to copy on.

    Returns:
        The array(s) on the device; an array already there is returned as is.
    """
    check_cuda_available()
    if stream is not None:
        _warnings.warn(
            "The stream option of to_gpu is deprecated; use a "
            "cupy.cuda.Stream context instead.",
            DeprecationWarning,
        )
    if array is None:
        return None
    target = _device.GpuDevice(_device_of(device).id)
    with stream if stream is not None else _null_context():
        return _to_gpu_nested(array, target)


def _to_gpu_nested(array, target):
    if isinstance(array, (list, tuple)):
        return type(array)(_to_gpu_nested(a, target) for a in array)
    if array is None:
        return None
    if not isinstance(
        array, (numpy.ndarray, numpy.generic, _numbers.Number, cupy.ndarray)
    ):
        raise TypeError(
            "The array sent to gpu must be an array or a NumPy scalar. "
            f"Actual type: {type(array)}."
        )
    return target.send_array(array)


class _null_context:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return None


def to_cpu(array, stream=None):
    """Copies an array (or nested lists/tuples of arrays) to host memory.

    Args:
        array: A NumPy or CuPy array, a NumPy scalar or Python number, None, or
            a list/tuple of them.
        stream: A ``cupy.cuda.Stream`` to copy on (asynchronous copy).

    Returns:
        The NumPy counterpart; NumPy arrays are returned as they are.
    """
    if array is None:
        return None
    if isinstance(array, (list, tuple)):
        return type(array)(to_cpu(a, stream) for a in array)
    if isinstance(array, cupy.ndarray):
        with array.device:
            return array.get(stream)
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


def copy(array, out=None, out_device=None, stream=None):
    """Copies a CuPy array, possibly to another device.

    Args:
        array (cupy.ndarray): The array to copy.
        out (cupy.ndarray): Destination; allocated when None.
        out_device: Device for a new ``out`` (id or ``cupy.cuda.Device``);
            defaults to the device of ``array``.
        stream: Not supported; must be None.

    Returns:
        cupy.ndarray: ``out``, holding a copy of ``array``.
    """
    check_cuda_available()
    if stream is not None:
        raise ValueError("copy does not support the stream option")
    if not isinstance(array, cupy.ndarray):
        raise TypeError(f"copy needs a cupy.ndarray, not {type(array).__name__}")
    if out is None:
        dev = array.device if out_device is None else _device_of(out_device)
        with dev:
            out = cupy.empty_like(array)
    if out.device.id == array.device.id:
        with array.device:
            cupy.copyto(out, array)
        return out
    moved = _device.GpuDevice(out.device.id).send_array(array)
    with out.device:
        cupy.copyto(out, moved)
    return out


def memoize(for_each_device=False):
    """Decorator caching a function's results by its arguments (CuPy's memo).

    Args:
        for_each_device (bool): Keep one cache per current CUDA device.

    Returns:
        callable: The decorator.
    """
    return cupy.memoize(for_each_device)


def clear_memo():
    """Clears the caches of every :func:`memoize`-decorated function."""
    cupy.clear_memo()


@_kernel_memo
def elementwise(in_params, out_params, operation, name, **kwargs):
    """Creates a (cached) ``cupy.ElementwiseKernel``.

    Args:
        in_params (str): Input arguments, e.g. ``'T x, T y'``.
        out_params (str): Output arguments, e.g. ``'T z'``.
        operation (str): Loop body in CUDA C, e.g. ``'z = x + y'``.
        name (str): Kernel name.
        **kwargs: Other ``cupy.ElementwiseKernel`` options.

    Returns:
        cupy.ElementwiseKernel: The kernel (call it with arrays).
    """
    check_cuda_available()
    return cupy.ElementwiseKernel(in_params, out_params, operation, name, **kwargs)


@_kernel_memo
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
    """Creates a (cached) ``cupy.ReductionKernel``.

    Args:
        in_params (str): Input arguments.
        out_params (str): Output arguments.
        map_expr (str): Expression mapping each input element.
        reduce_expr (str): Expression combining ``a`` and ``b``.
        post_map_expr (str): Expression applied to the reduced ``a``.
        identity (str): The identity of the reduction.
        name (str): Kernel name.
        **kwargs: Other ``cupy.ReductionKernel`` options.

    Returns:
        cupy.ReductionKernel: The kernel.
    """
    check_cuda_available()
    return cupy.ReductionKernel(
        in_params,
        out_params,
        map_expr,
        reduce_expr,
        post_map_expr,
        identity,
        name,
        **kwargs,
    )


@_kernel_memo
def raw(code, name, *args, **kwargs):
    """Creates a (cached) ``cupy.RawKernel``.

    Args:
        code (str): CUDA source.
        name (str): Name of the ``__global__`` function.
        *args: Other ``cupy.RawKernel`` arguments.
        **kwargs: Other ``cupy.RawKernel`` options.

    Returns:
        cupy.RawKernel: The kernel.
    """
    check_cuda_available()
    return cupy.RawKernel(code, name, *args, **kwargs)


def fuse(*args, **kwargs):
    """Kernel fusion decorator (``cupy.fuse``); works on NumPy inputs too.

    Args:
        *args: The function to fuse, or nothing when used with options.
        **kwargs: ``cupy.fuse`` options (``kernel_name``).

    Returns:
        callable: The fused function, or a decorator.
    """
    return cupy.fuse(*args, **kwargs)


def get_max_workspace_size():
    """Returns the cuDNN workspace size limit in bytes.

    Returns:
        int: The limit.
    """
    return _max_workspace_size


def set_max_workspace_size(size):
    """Sets the cuDNN workspace size limit in bytes.

    Args:
        size (int): The limit.
    """
    global _max_workspace_size
    _max_workspace_size = int(size)


def should_use_cudnn(level, lowest_version=0):
    """Returns whether cuDNN should be used under ``chainer.config.use_cudnn``.

    Args:
        level (str): ``'==always'`` (only when ``use_cudnn`` is ``'always'``)
            or ``'>=auto'`` (unless ``use_cudnn`` is ``'never'``).
        lowest_version (int): The lowest cuDNN version that will do.

    Returns:
        bool: Whether to use cuDNN.
    """
    if level not in _SHOULD_USE_CUDNN:
        raise ValueError(f"invalid cuDNN level: {level!r}")
    if not cudnn_enabled or _cudnn_version < lowest_version:
        return False
    flags = _SHOULD_USE_CUDNN[level]
    use_cudnn = config.use_cudnn
    if use_cudnn not in flags:
        raise ValueError(
            f"invalid use_cudnn configuration: {use_cudnn!r} (must be either of "
            "'always', 'auto', or 'never')"
        )
    return flags[use_cudnn]


def should_use_cudnn_tensor_core(dtype):
    """Returns whether cuDNN should use Tensor Cores for ``dtype``.

    Args:
        dtype: The computation dtype.

    Returns:
        bool: True for ``'always'``; for ``'auto'``, True with float16 on a
        device of compute capability 7.0 or newer.
    """
    mode = config.use_cudnn_tensor_core
    if mode == "always":
        return True
    if mode == "never":
        return False
    if mode != "auto":
        raise ValueError(
            f"invalid use_cudnn_tensor_core configuration: {mode!r} (must be "
            "either of 'always', 'auto', or 'never')"
        )
    if not cudnn_enabled or _cudnn_version < 7000:
        return False
    if numpy.dtype(dtype) != numpy.float16:
        return False
    return int(cupy.cuda.Device().compute_capability) >= 70


_dropout_states: dict = {}
_dropout_lock = _threading.Lock()


def get_cudnn_dropout_states():
    """Returns the cuDNN dropout states of this thread on the current device.

    Returns:
        cupy.cudnn.DropoutStates: The states.
    """
    return get_cudnn_dropout_states_core(_threading.get_ident())


def get_cudnn_dropout_states_core(thread_id):
    """Returns the cuDNN dropout states of one thread on the current device.

    Args:
        thread_id (int): The thread identifier the states belong to.

    Returns:
        cupy.cudnn.DropoutStates: The states, created on first use and seeded
        from ``CHAINER_SEED`` when set.
    """
    check_cuda_available()
    if not cudnn_enabled:
        raise RuntimeError("cuDNN is not available to CuPy on this machine")
    key = (thread_id, cupy.cuda.Device().id)
    with _dropout_lock:
        states = _dropout_states.get(key)
        if states is None:
            seed = _os.environ.get("CHAINER_SEED")
            seed = int(seed) if seed is not None else numpy.random.randint(2**31)
            states = cudnn.DropoutStates(None, seed)
            _dropout_states[key] = states
    return states
