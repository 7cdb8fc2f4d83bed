"""Objects that live on a device and move their arrays with them."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend


class DeviceResident:
    """A base class of objects with multi-device hierarchy.

    Device residents (links, and anything else holding arrays that should
    follow a model across devices) remember the :class:`~chainer.backend.Device`
    they are on. Moving one with :meth:`to_device`, :meth:`to_cpu` or
    :meth:`to_gpu` walks the hierarchy with a
    :class:`DeviceResidentsVisitor`; a subclass that holds arrays the base
    class does not know about overrides :meth:`device_resident_accept` and
    passes them to the visitor.
    """

    # Class-level default so that subclasses forgetting ``super().__init__()``
    # still answer ``device``.
    _device: backend.Device = backend.CpuDevice()

    def __init__(self) -> None:
        self._device = backend.CpuDevice()

    @property
    def device(self) -> backend.Device:
        """:class:`~chainer.backend.Device` instance this object is on."""
        return self._device

    @property
    def xp(self) -> Any:
        """Array module (``numpy``, ``cupy``...) of the device this object is on."""
        return self._device.xp

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Applies the visitor to this object and the arrays it holds.

        Subclasses that hold device-resident children or arrays extend this
        method: call ``super().device_resident_accept(visitor)``, then pass
        children and arrays on (``self.x = visitor.visit_array(self.x)``).

        Args:
            visitor (DeviceResidentsVisitor): Visitor.
        """
        visitor.visit_device_resident(self)

    def to_device(self, device: Any) -> DeviceResident:
        """Copies parameter variables and persistent values to the given device.

        Non-registered attributes are not moved; a link holding other arrays
        overrides :meth:`device_resident_accept` to move them too.

        Args:
            device: Target device specifier, anything
                :func:`chainer.get_device` accepts (e.g. ``'@numpy'``,
                ``'@cupy:0'``, a :class:`~chainer.backend.Device`).

        Returns:
            DeviceResident: ``self``.
        """
        device = backend.get_device(device)
        self.device_resident_accept(_ToDeviceVisitor(device))
        return self

    def to_cpu(self) -> DeviceResident:
        """Copies parameter variables and persistent values to CPU.

        Returns:
            DeviceResident: ``self``.
        """
        visitor = _ToDeviceVisitor(
            backend.CpuDevice(), legacy_method=("to_cpu", {}), starting=self
        )
        self.device_resident_accept(visitor)
        return self

    def to_gpu(self, device: Any = None) -> DeviceResident:
        """Copies parameter variables and persistent values to a GPU.

        As in Chainer, arrays already on some GPU are left where they are;
        use :meth:`to_device` to move between GPUs.

        Args:
            device: Target CUDA device: an id, a ``cupy.cuda.Device`` or a
                device specifier. If omitted, the current CUDA device is used.

        Returns:
            DeviceResident: ``self``.

        Raises:
            RuntimeError: CUDA (CuPy and ``chainer-cuda``) is not available.
        """
        from chainer.backends import cuda

        cuda.check_cuda_available()
        if device is None:
            device = cuda.Device()
        requested = device
        if isinstance(device, (int, numpy.integer)) and not isinstance(device, bool):
            if device < 0:
                raise ValueError(f"invalid GPU device id {device}: must be >= 0")
            device = f"@cupy:{int(device)}"
        gpu = backend.get_device(device)
        if gpu.xp is numpy:
            raise ValueError(f"to_gpu needs a GPU device, got {gpu}")
        visitor = _ToDeviceVisitor(
            gpu,
            legacy_method=("to_gpu", {"device": requested}),
            starting=self,
            keep_on_same_backend=True,
        )
        self.device_resident_accept(visitor)
        return self

    def to_intel64(self) -> DeviceResident:
        """Copies arrays to the iDeep (Intel64) backend; not supported here.

        Raises:
            RuntimeError: Always; iDeep is not supported by this Chainer.
        """
        raise RuntimeError(
            f"{type(self).__name__}.to_intel64: iDeep (Intel64) acceleration is "
            "not supported by this Chainer"
        )

    def to_chx(self) -> DeviceResident:
        """Converts arrays to ChainerX arrays; not supported here.

        Raises:
            RuntimeError: Always; ChainerX is not supported by this Chainer.
        """
        raise RuntimeError(
            f"{type(self).__name__}.to_chx: ChainerX is not supported by this Chainer"
        )

    def from_chx(self) -> DeviceResident:
        """Converts ChainerX arrays back to NumPy/CuPy arrays.

        Without ChainerX nothing can be on a ChainerX device, so this leaves
        the object as it is.

        Returns:
            DeviceResident: ``self``.
        """
        return self


class DeviceResidentsVisitor:
    """Base class of visitors walking a hierarchy of device residents.

    :meth:`DeviceResident.device_resident_accept` calls the ``visit_*``
    methods for the object itself, its parameters and its arrays. The base
    class leaves everything as it is; subclasses override what they handle.
    """

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        """Processes a :class:`DeviceResident` instance.

        Args:
            device_resident (DeviceResident): The visited object.
        """

    def visit_array(self, arr: Any) -> Any:
        """Processes an array and returns a new one (or the same).

        Args:
            arr: An array held by a device resident.

        Returns:
            The array that should replace ``arr``.
        """
        return arr

    def visit_variable(self, param: Any) -> None:
        """Processes a :class:`~chainer.Variable` or :class:`~chainer.Parameter`.

        Args:
            param (~chainer.Variable): The visited variable.
        """


class _ToDeviceVisitor(DeviceResidentsVisitor):
    """Moves every array it visits to one device."""

    def __init__(
        self, device, legacy_method=None, starting=None, keep_on_same_backend=False
    ):
        self._device = device
        self._legacy_method = legacy_method
        self._starting = starting
        self._keep = keep_on_same_backend

    def visit_device_resident(self, device_resident):
        device_resident._device = self._device
        if self._legacy_method is None or device_resident is self._starting:
            return
        # Links written for Chainer < 6 override to_cpu/to_gpu to move extra
        # attributes; calling the override keeps them working when a parent
        # is moved.
        method_name, kwargs = self._legacy_method
        method = getattr(type(device_resident), method_name, None)
        if method is not None and method is not getattr(DeviceResident, method_name):
            getattr(device_resident, method_name)(**kwargs)

    def _stays(self, arr) -> bool:
        # to_gpu never moved arrays between GPUs; keep that legacy behaviour.
        return self._keep and backend.get_array_module(arr) is self._device.xp

    def visit_array(self, arr):
        if arr is None or self._stays(arr):
            return arr
        return self._device.send(arr)

    def visit_variable(self, param):
        arr = param.array
        if arr is not None and self._stays(arr):
            return
        param.to_device(self._device)
