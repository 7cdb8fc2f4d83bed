"""Objects that live on a device and move their arrays with them."""

from __future__ import annotations

import abc
import warnings
import weakref
from typing import TYPE_CHECKING
from typing import Any

import numpy

from chainer import backend
from chainer.utils import meta


def _deprecated_move(obj, method: str, replacement: str) -> None:
    warnings.warn(
        f"{type(obj).__name__}.{method}() is deprecated since Chainer 7: use "
        f"{type(obj).__name__}.to_device({replacement}) instead.",
        DeprecationWarning,
        stacklevel=3,
    )


if TYPE_CHECKING:  # a class mypy can analyse; the same base at run time

    class _FinalBase:
        pass

else:
    _FinalBase = meta.enable_final(meta_base=abc.ABCMeta)


class DeviceResident(_FinalBase):
    """A base class of objects with multi-device hierarchy.

    Device residents (links, and anything else holding arrays that should
    follow a model across devices) remember the :class:`~chainer.backend.Device`
    they are on. Moving one with :meth:`to_device` walks the hierarchy with a
    :class:`DeviceResidentsVisitor`; a subclass that holds arrays the base
    class does not know about overrides :meth:`device_resident_accept` and
    passes them to the visitor.

    As in Chainer 7, :meth:`to_device`, :meth:`to_chx` and :meth:`from_chx`
    are final (a subclass overriding one is a ``TypeError``), and
    :meth:`to_cpu`, :meth:`to_gpu` and :meth:`to_intel64` are deprecated
    (calling one, or overriding one, emits a ``DeprecationWarning``). A
    subclass written for Chainer < 6 that overrides them to move extra
    attributes still works: when its parent moves, the override is called
    (``to_cpu`` for a move to the CPU, ``to_gpu`` to a GPU).
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

    @meta.final
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

    @meta.final(action=DeprecationWarning)
    def to_cpu(self) -> DeviceResident:
        """Copies parameter variables and persistent values to CPU.

        .. deprecated:: v7.0.0
           Use :meth:`to_device` (``to_device('@numpy')``) instead.

        Returns:
            DeviceResident: ``self``.
        """
        _deprecated_move(self, "to_cpu", "'@numpy'")
        visitor = _ToDeviceVisitor(
            backend.CpuDevice(), entry_method=("to_cpu", {}), starting=self
        )
        self.device_resident_accept(visitor)
        return self

    @meta.final(action=DeprecationWarning)
    def to_gpu(self, device: Any = None) -> DeviceResident:
        """Copies parameter variables and persistent values to a GPU.

        .. deprecated:: v7.0.0
           Use :meth:`to_device` (``to_device('@cupy:0')``) instead.

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
        _deprecated_move(self, "to_gpu", "'@cupy:N'")
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
            entry_method=("to_gpu", {"device": requested}),
            starting=self,
            keep_on_same_backend=True,
        )
        self.device_resident_accept(visitor)
        return self

    @meta.final(action=DeprecationWarning)
    def to_intel64(self) -> DeviceResident:
        """Copies arrays to the iDeep (Intel64) backend.

        .. deprecated:: v7.0.0
           Use :meth:`to_device` (``to_device('@intel64')``) instead.

        Raises:
            RuntimeError: iDeep is not available in this Chainer.
        """
        _deprecated_move(self, "to_intel64", "'@intel64'")
        from chainer.backends import intel64

        intel64.check_ideep_available()
        visitor = _ToDeviceVisitor(
            intel64.Intel64Device(), entry_method=("to_intel64", {}), starting=self
        )
        self.device_resident_accept(visitor)
        return self

    @meta.final
    def to_chx(self) -> DeviceResident:
        """Converts parameter variables and persistent values to ChainerX.

        Raises:
            RuntimeError: ChainerX is not available in this Chainer.
        """
        from chainer.backends import _chainerx

        _chainerx.check_chainerx_available()
        return self  # pragma: no cover - ChainerX never exists here

    @meta.final
    def from_chx(self) -> DeviceResident:
        """Converts ChainerX arrays back to NumPy/CuPy arrays without copying.

        Without ChainerX nothing can be on a ChainerX device, so this leaves
        the object as it is.

        Returns:
            DeviceResident: ``self``.
        """
        self.device_resident_accept(_FromChxVisitor())
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


# Overridable legacy methods, each with the DeviceResident implementation.
_LEGACY_METHODS = ("to_cpu", "to_gpu", "to_intel64")
_overridden_by_type: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _overridden_methods(cls) -> frozenset:
    found = _overridden_by_type.get(cls)
    if found is None:
        found = frozenset(
            name
            for name in _LEGACY_METHODS
            if getattr(cls, name, None) is not getattr(DeviceResident, name)
        )
        _overridden_by_type[cls] = found
    return found


def _legacy_call_for(device):
    # The Chainer < 6 method a move to ``device`` corresponds to.
    if isinstance(device, backend.CpuDevice):
        return "to_cpu", {}
    xp = device.xp
    if getattr(xp, "__name__", None) == "cupy":
        return "to_gpu", {"device": getattr(getattr(device, "device", None), "id", 0)}
    if type(device).__name__ == "Intel64Device":  # pragma: no cover - no iDeep
        return "to_intel64", {}
    return None, {}


class _ToDeviceVisitor(DeviceResidentsVisitor):
    """Moves every array it visits to one device."""

    def __init__(
        self, device, entry_method=None, starting=None, keep_on_same_backend=False
    ):
        self._device = device
        self._entry_method = entry_method
        self._starting = starting
        self._keep = keep_on_same_backend

    def visit_device_resident(self, device_resident):
        device_resident._device = self._device
        overridden = _overridden_methods(type(device_resident))
        if not overridden or device_resident is self._starting:
            return
        # Links written for Chainer < 6 override to_cpu/to_gpu to move extra
        # attributes; calling the override keeps them working when a parent
        # is moved.
        if self._entry_method is not None:
            method_name, kwargs = self._entry_method
        else:
            method_name, kwargs = _legacy_call_for(self._device)
        if method_name in overridden:
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


class _FromChxVisitor(DeviceResidentsVisitor):
    """Converts ChainerX arrays to NumPy/CuPy ones (none exist here)."""

    def visit_array(self, arr):
        return backend.from_chx(arr)

    def visit_variable(self, param):
        param.from_chx()
