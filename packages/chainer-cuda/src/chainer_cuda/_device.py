"""The CuPy device, ``'@cupy:N'`` (registered as the ``cupy`` backend).

Importing this module imports CuPy when it is installed (it is only imported when
a GPU device or the type of a non-NumPy array is asked for), but never calls the
CUDA driver. Creating a device checks that CUDA is usable and otherwise raises
the one error of :func:`chainer_cuda.check_available`.
"""

from __future__ import annotations

import numbers
import threading

import numpy

import chainer_cuda
from chainer import backend

_cupy = chainer_cuda._probe()[0]
_tls = threading.local()


def _context_stack() -> list:
    stack = getattr(_tls, "contexts", None)
    if stack is None:
        stack = _tls.contexts = []
    return stack


class GpuDevice(backend.GpuDevice):
    """A CUDA device of CuPy, ``'@cupy:N'``.

    Obtain one with ``chainer.get_device('@cupy:N')`` (or an integer ``N``),
    :meth:`from_device_id`, :meth:`from_array` or :meth:`current`.

    Args:
        device (int or cupy.cuda.Device): The device or its id.

    Raises:
        RuntimeError: CUDA is not usable (CuPy missing, or no driver/device).
        ValueError: The id is negative or names no existing device.
    """

    xp = _cupy
    supported_array_types = (_cupy.ndarray,) if _cupy is not None else ()
    #: The module that implements ``chainer.backends.cuda`` for this backend,
    #: as an importable name. chainer-core's facade reads this documented
    #: attribute of the backend registered as ``'cupy'`` (see the hookspec
    #: ``register_backends``), so that core never names this distribution.
    legacy_cuda_module = "chainer_cuda.legacy"

    def __init__(self, device=0):
        cupy = chainer_cuda.get_cupy()
        device_id = _device_id(device)
        count = cupy.cuda.runtime.getDeviceCount()
        if device_id >= count:
            raise ValueError(
                f"CUDA device {device_id} does not exist: {count} device(s) are visible"
            )
        self.device = cupy.cuda.Device(device_id)
        self.name = f"@cupy:{device_id}"

    @classmethod
    def from_index(cls, index: int) -> GpuDevice:
        """Returns the device ``'@cupy:index'``.

        Args:
            index (int): CUDA device id.

        Returns:
            GpuDevice: The device.
        """
        return cls(index)

    @classmethod
    def from_device_id(cls, device_id: int) -> GpuDevice:
        """Returns the device with the given CUDA id (Chainer's name).

        Args:
            device_id (int): CUDA device id.

        Returns:
            GpuDevice: The device.
        """
        return cls(device_id)

    @classmethod
    def current(cls) -> GpuDevice:
        """Returns the current CUDA device of this thread.

        Returns:
            GpuDevice: The device CuPy allocates on now.
        """
        cupy = chainer_cuda.get_cupy()
        return cls(cupy.cuda.runtime.getDevice())

    @staticmethod
    def from_array(array) -> GpuDevice | None:
        """Returns the device holding a CuPy array, or None for other arrays.

        Args:
            array: An array.

        Returns:
            GpuDevice or None: The array's device.
        """
        if _cupy is None or not isinstance(array, _cupy.ndarray):
            return None
        return GpuDevice(array.device.id)

    @property
    def device_id(self) -> int:
        """int: The CUDA device id."""
        return self.device.id

    def __repr__(self) -> str:
        return f"<GpuDevice (cupy):{self.device.id}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GpuDevice) and other.device.id == self.device.id

    def __hash__(self) -> int:
        return hash(self.name)

    def is_array_supported(self, array) -> bool:
        """Returns whether ``array`` is a CuPy array on this device.

        Args:
            array: An array.

        Returns:
            bool: True for a ``cupy.ndarray`` allocated on this device.
        """
        return isinstance(array, _cupy.ndarray) and array.device.id == self.device.id

    def create_context(self):
        """Returns a ``cupy.cuda.Device`` context that makes this device current.

        Returns:
            cupy.cuda.Device: A fresh context manager for this device.
        """
        return _cupy.cuda.Device(self.device.id)

    def use(self) -> None:
        """Makes this device the current CUDA device of this thread."""
        self.device.use()

    def synchronize(self) -> None:
        """Waits until all work queued on this device has finished."""
        self.device.synchronize()

    def __enter__(self) -> GpuDevice:
        # The cupy.cuda.Device context restores the previous device on exit.
        ctx = self.create_context()
        ctx.__enter__()
        _context_stack().append(ctx)
        super().__enter__()
        return self

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        _context_stack().pop().__exit__(*exc)

    def send_array(self, array):
        """Copies one array (NumPy, CuPy on any device, or a scalar) here.

        Args:
            array: A ``numpy.ndarray``, a ``cupy.ndarray``, a NumPy scalar or a
                Python number.

        Returns:
            cupy.ndarray: ``array`` itself if it already lives on this device,
            otherwise a copy on this device.
        """
        cupy = _cupy
        if isinstance(array, cupy.ndarray):
            if array.device.id == self.device.id:
                return array
            return _copy_between_devices(array, self.device.id)
        if isinstance(array, (numpy.generic, numbers.Number)):
            array = numpy.asarray(array)
        if isinstance(array, numpy.ndarray):
            with cupy.cuda.Device(self.device.id):
                return cupy.asarray(array)
        if backend.is_array_supported(array):
            # An array of another registered backend: go through the host.
            host = backend.CpuDevice().send(array)
            with cupy.cuda.Device(self.device.id):
                return cupy.asarray(host)
        raise TypeError(
            "The array sent to gpu must be an array or a NumPy scalar. "
            f"Actual type: {type(array)}."
        )


def _device_id(device) -> int:
    if isinstance(device, bool):
        raise TypeError(f"invalid CUDA device: {device!r}")
    if isinstance(device, (int, numpy.integer)):
        device_id = int(device)
    elif isinstance(device, GpuDevice):
        device_id = device.device.id
    elif _cupy is not None and isinstance(device, _cupy.cuda.Device):
        device_id = device.id
    else:
        raise TypeError(
            "a CUDA device must be given as an int id or a cupy.cuda.Device, "
            f"not {type(device).__name__}"
        )
    if device_id < 0:
        raise ValueError(f"invalid CUDA device id {device_id}: must be >= 0")
    return device_id


def _copy_between_devices(array, device_id: int):
    cupy = _cupy
    with array.device:
        src = cupy.ascontiguousarray(array)
    with cupy.cuda.Device(device_id):
        dst = cupy.empty(src.shape, src.dtype)
        if src.nbytes:
            # Peer-to-peer where the driver allows it, staged otherwise: CuPy's
            # memory copy picks the route.
            dst.data.copy_from_device(src.data, src.nbytes)
    return dst


if _cupy is not None:
    backend.register_array_type(_cupy.ndarray, GpuDevice)
