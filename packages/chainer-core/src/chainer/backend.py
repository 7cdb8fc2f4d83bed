"""Devices and array-module dispatch (``chainer.backend``).

A :class:`Device` names where arrays live and how to move them there. The NumPy
device is built in; other backends (CuPy through ``chainer-cuda``, third-party
ones) are registered through the plugin registry and found by name, e.g.
``get_device('@cupy:0')``. Array-module lookups are cached by array type, so a
question about a NumPy array never imports another backend.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import numpy

from chainer import _dispatch
from chainer._host_memory import get_host_memory_retention  # noqa: F401
from chainer._host_memory import set_host_memory_retention  # noqa: F401

# The array-type caches live in the leaf module chainer._dispatch (the registry
# clears them there when it publishes); these names are the same objects, read
# as globals of this module by the hot paths. Array type -> array module and
# Device class, filled lazily for foreign types; types known not to be arrays
# of any loaded backend; backends declaring no array types that failed to load
# during a type lookup (reported once).
_module_by_type: dict[type, Any] = _dispatch.module_by_type
_device_class_by_type: dict[type, type] = _dispatch.device_class_by_type
_non_array_types: set[type] = _dispatch.non_array_types
_failed_backends: set[str] = _dispatch.failed_backends
_thread_local = threading.local()


class Device:
    """A device where arrays are allocated and computed (abstract).

    Subclasses set :attr:`xp` (the array module), :attr:`supported_array_types`
    and :attr:`name` (``'@numpy'``, ``'@cupy:0'``...), and implement
    :meth:`send_array`.
    """

    xp: Any = None
    supported_array_types: tuple = ()
    name: str = ""

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and self.name == other.name

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self.name)

    def __enter__(self) -> Device:
        stack = _device_stack()
        stack.append(self)
        self.use()
        return self

    def __exit__(self, *exc) -> None:
        _device_stack().pop()

    def create_context(self):
        """Returns a context manager in which this device is current."""
        return contextlib.nullcontext()

    @staticmethod
    def from_array(array) -> Device | None:
        """Returns the device of ``array`` if this backend owns it, else None."""
        return None

    def is_array_supported(self, array) -> bool:
        """Returns whether ``array`` may be used on this device as it is."""
        return isinstance(array, self.supported_array_types)

    def send_array(self, array):
        """Transfers one array to this device (override in subclasses)."""
        raise TypeError(f"{type(self).__name__} cannot receive arrays")

    def send(self, arrays):
        """Transfers arrays (nested tuples, lists and dicts allowed) to this device.

        Args:
            arrays: An array, or a nested tuple/list/dict of arrays. ``None``
                entries are kept.

        Returns:
            The same structure with every array on this device.
        """
        if arrays is None:
            return None
        if isinstance(arrays, (tuple, list)):
            return type(arrays)(self.send(a) for a in arrays)
        if isinstance(arrays, dict):
            return {k: self.send(v) for k, v in arrays.items()}
        return self.send_array(arrays)

    def use(self) -> None:
        """Makes this device current (a no-op for devices without a notion of it)."""


class CpuDevice(Device):
    """The NumPy (host memory) device, ``'@numpy'``."""

    xp = numpy
    supported_array_types = (numpy.ndarray, numpy.generic)
    name = "@numpy"

    def __repr__(self) -> str:
        return "<CpuDevice (numpy)>"

    @staticmethod
    def from_array(array) -> CpuDevice | None:
        if isinstance(array, (numpy.ndarray, numpy.generic)):
            return _CPU
        return None

    def send_array(self, array):
        if isinstance(array, numpy.ndarray):
            return array
        if isinstance(array, numpy.generic) or numpy.isscalar(array):
            return numpy.asarray(array)
        if _device_class_for_type(type(array)) is not None:
            getter = getattr(array, "get", None)  # CuPy and friends: copy to host
            return getter() if getter is not None else numpy.asarray(array)
        raise TypeError(
            "The array sent to cpu must be numpy.ndarray or an array of a "
            f"registered backend, or a NumPy scalar. Actual type: {type(array)}."
        )


_CPU = CpuDevice()


class GpuDevice(Device):
    """A CUDA device, provided by the ``chainer-cuda`` plugin (``'@cupy:N'``).

    Constructing one delegates to the registered ``cupy`` backend; without it a
    clear error names what to install.

    Args:
        device: A ``cupy.cuda.Device`` or a device id.
    """

    def __new__(cls, device=0):
        if cls is GpuDevice:
            impl = _backend_class("cupy")
            return impl(device)
        return super().__new__(cls)

    @staticmethod
    def from_device_id(device_id: int) -> Device:
        """Returns the CUDA device with the given id."""
        return _backend_class("cupy").from_index(device_id)

    @staticmethod
    def from_array(array) -> Device | None:
        cls = _device_class_for_type(type(array))
        if cls is None or cls is CpuDevice:
            return None
        return cls.from_array(array)


def _device_stack() -> list:
    stack = getattr(_thread_local, "stack", None)
    if stack is None:
        stack = _thread_local.stack = []
    return stack


def _backend_class(name: str):
    """Returns the Device class registered for backend ``name``."""
    if name == "numpy":
        return CpuDevice
    from chainer import plugins

    try:
        return plugins.get_backend(name)
    except KeyError:
        if name == "cupy":
            from chainer.utils import install_hint

            raise RuntimeError(
                "CUDA (CuPy) backend is not available: install the `chainer-cuda` "
                "distribution and CuPy on a machine with an NVIDIA GPU: "
                + install_hint.install_hint("chainer-cuda")
            ) from None
        raise ValueError(
            f"unknown device backend '@{name}': no installed plugin registers it"
        ) from None


def _device_from_string(spec: str) -> Device:
    stripped = spec.strip()
    if stripped.lstrip("-").isdigit():
        # Chainer's examples pass --device '-1' / '0' strings straight through.
        return get_device(int(stripped))
    if not spec.startswith("@"):
        # Chainer 7 reads specifiers without '@' as ChainerX devices
        # ('native', 'native:0', 'cuda:1').
        import chainerx

        if not chainerx.is_available():
            raise RuntimeError(
                f"invalid device specifier {spec!r}: specifiers without '@' are "
                "ChainerX devices ('native:0', 'cuda:0'), and ChainerX is not "
                "available in this Chainer; use '@numpy' for the CPU or "
                "'@cupy:N' for a GPU"
            )
        raise ValueError(f"invalid device specifier {spec!r}")  # pragma: no cover
    name, sep, index = spec[1:].partition(":")
    if name == "numpy":
        if sep:
            raise ValueError(f"invalid device specifier {spec!r}: '@numpy' has no id")
        return _CPU
    if name == "intel64":
        if sep:
            raise ValueError(f"invalid device specifier {spec!r}: '@intel64' has no id")
        from chainer.backends import intel64

        return intel64.Intel64Device()
    if sep:
        try:
            idx = int(index)
        except ValueError:
            raise ValueError(
                f"invalid device specifier {spec!r}: device id must be an integer"
            ) from None
        if idx < 0:
            raise ValueError(f"invalid device specifier {spec!r}: negative id")
    else:
        idx = None
    cls = _backend_class(name)
    if idx is not None:
        return cls.from_index(idx) if hasattr(cls, "from_index") else cls(idx)
    if name == "cupy":
        # No id: the current CUDA device.
        return cls.current() if hasattr(cls, "current") else cls.from_index(0)
    return cls()


def get_device(device_spec) -> Device:
    """Returns a :class:`Device` object from a device specifier.

    Args:
        device_spec: One of a :class:`Device`; a string ``'@numpy'``,
            ``'@cupy:N'`` or ``'@<backend>[:N]'`` of a registered plugin backend;
            an integer or a string holding one (negative: CPU, ``N >= 0``:
            CUDA device N, the legacy form); a tuple ``(numpy, )``/``(cupy,
            N)``; the ``numpy`` module; or a ``cupy.cuda.Device``.

    Returns:
        Device: The device.

    Raises:
        TypeError: ``device_spec`` is of none of these types.
        ValueError: A malformed ``'@...'`` string.
        RuntimeError: A ChainerX specifier (a string without ``'@'``, such
            as ``'native:0'``: ChainerX is not available), ``'@intel64'``
            (iDeep is not available), or a CUDA device without CUDA.
    """
    if isinstance(device_spec, Device):
        return device_spec
    if isinstance(device_spec, str):
        return _device_from_string(device_spec)
    if isinstance(device_spec, bool):
        raise TypeError(f"invalid device specifier: {device_spec!r}")
    if isinstance(device_spec, (int, numpy.integer)):
        if device_spec < 0:
            return _CPU
        return _device_from_string(f"@cupy:{int(device_spec)}")
    if device_spec is numpy:
        return _CPU
    if isinstance(device_spec, tuple) and device_spec:
        mod = device_spec[0]
        if mod is numpy and len(device_spec) == 1:
            return _CPU
        name = getattr(mod, "__name__", None)
        if name == "cupy" and len(device_spec) == 2:
            return _device_from_string(f"@cupy:{int(device_spec[1])}")
    mod_name = type(device_spec).__module__ or ""
    if mod_name.startswith("cupy") and hasattr(device_spec, "id"):
        return _device_from_string(f"@cupy:{int(device_spec.id)}")
    if getattr(device_spec, "__name__", None) == "cupy":
        return _device_from_string("@cupy:0")
    raise TypeError(
        f"invalid device specifier: {device_spec!r} (a Device, a string such as "
        "'@numpy' or '@cupy:0', an integer, or a cupy.cuda.Device expected)"
    )


def _device_class_for_type(t: type):
    cls = _device_class_by_type.get(t)
    if cls is not None:
        return cls
    if t in _non_array_types:
        return None
    if issubclass(t, (numpy.ndarray, numpy.generic)):
        cls = CpuDevice
    elif t.__module__ == "builtins":
        # Scalars, None, lists, tuples and str are never arrays: no registry.
        _non_array_types.add(t)
        return None
    else:
        cls = _plugin_device_class(t)
        if cls is None:
            _non_array_types.add(t)
            return None
    _device_class_by_type[t] = cls
    _module_by_type[t] = cls.xp
    return cls


def _plugin_device_class(t: type):
    # Backends declare their array types as "module:QualName" strings, so a
    # type is matched without importing any backend; only the backend that
    # owns the type is imported. Backends that declare none are resolved as a
    # last resort, and one that fails to load is reported and skipped.
    from chainer import plugins

    plugins.ensure_loaded()
    name = _dispatch.find_array_backend(t)
    if name is not None:
        return _backend_class(name)
    for name in tuple(_dispatch.undeclared_backends):
        if name == "numpy" or name in _failed_backends:
            continue
        try:
            candidate = plugins.get_backend(name)
        except Exception as exc:
            _failed_backends.add(name)
            import warnings

            from chainer import warnings as chainer_warnings

            warnings.warn(
                f"backend '@{name}' was skipped while looking for the owner of "
                f"the type {t.__module__}.{t.__qualname__}: {exc}",
                chainer_warnings.PluginWarning,
                stacklevel=4,
            )
            continue
        types = getattr(candidate, "supported_array_types", ())
        if types and issubclass(t, tuple(types)):
            return candidate
    return None


def register_array_type(array_type: type, device_class: type[Device]) -> None:
    """Associates an array type with the Device class that owns it.

    Backend plugins call this once when they load so that dispatch on their
    arrays never needs a registry lookup.

    Args:
        array_type (type): The array class (e.g. ``cupy.ndarray``).
        device_class (type): A :class:`Device` subclass with ``xp`` set.

    Raises:
        TypeError: ``array_type`` is not a class, or ``device_class`` is not a
            :class:`Device` subclass.
    """
    if not isinstance(array_type, type):
        raise TypeError(
            f"register_array_type() takes an array class, not {array_type!r}"
        )
    if not (isinstance(device_class, type) and issubclass(device_class, Device)):
        raise TypeError(
            "register_array_type() takes a chainer.backend.Device subclass, "
            f"not {device_class!r}"
        )
    _dispatch.register_array_type(array_type, device_class, device_class.xp)


_dispatch.register_array_type(numpy.ndarray, CpuDevice, numpy)


def _array_of(x):
    # Variables carry their array in ``array``; avoid importing variable here.
    arr = getattr(x, "_data", None)
    if arr is not None and getattr(x, "_is_chainer_variable", False):
        return arr
    return x


def get_array_module(*args):
    """Returns the array module (``numpy``, ``cupy``...) for the given arrays.

    Variables are looked through to their arrays. Arguments that are not arrays
    of a registered backend (scalars, None, lists) count as NumPy.

    Returns:
        module: ``numpy`` unless one argument belongs to another backend.
    """
    for arg in args:
        t = type(arg)
        if t is numpy.ndarray:
            continue
        if getattr(arg, "_is_chainer_variable", False):
            arg = arg._data
            t = type(arg)
            if t is numpy.ndarray or arg is None:
                continue
        xp = _module_by_type.get(t)
        if xp is None:
            if t.__module__ in ("builtins", "numpy"):
                continue
            cls = _device_class_for_type(t)
            if cls is None:
                continue
            xp = cls.xp
        if xp is not numpy:
            return xp
    return numpy


def get_device_from_array(*arrays) -> Device:
    """Returns the device of the first array among ``arrays`` (CPU if none).

    Args:
        *arrays: Arrays or Variables.

    Returns:
        Device: The device that holds them.
    """
    for arr in arrays:
        arr = _array_of(arr)
        if arr is None:
            continue
        t = type(arr)
        if t is numpy.ndarray:
            return _CPU
        cls = _device_class_for_type(t)
        if cls is not None:
            return cls.from_array(arr)
    return _CPU


def is_array_supported(array) -> bool:
    """Returns whether ``array`` is an array of a known backend."""
    return _device_class_for_type(type(array)) is not None


def get_array_types() -> tuple:
    """Returns the array types of all loaded backends."""
    return tuple(_device_class_by_type)


def copyto(dst, src) -> None:
    """Copies the elements of ``src`` into ``dst`` across devices.

    Args:
        dst: Destination array; it keeps its device.
        src: Source array (any device) or scalar.
    """
    if not is_array_supported(dst):
        raise TypeError(f"cannot copy to {type(dst).__name__}: not an array")
    dev = get_device_from_array(dst)
    if is_array_supported(src):
        src = dev.send(src)
    dev.xp.copyto(dst, src)


def using_device(device_spec):
    """Context manager making a device current for its block.

    The specifier is resolved at once, so an invalid one raises here, not
    when the block is entered.

    Args:
        device_spec: Anything :func:`get_device` accepts.

    Returns:
        A context manager whose ``with`` target is the :class:`Device`.
    """
    return _using(get_device(device_spec))


@contextlib.contextmanager
def _using(device):
    with device:
        yield device


def _contains_nan(x) -> bool:
    """Returns whether the array ``x`` has NaN values."""
    if x.dtype.kind in ("f", "c"):
        device = get_device_from_array(x)
        with using_device(device):
            return bool(device.xp.isnan(x).any())
    return False


def to_chx(array):
    """Converts an array or arrays to ChainerX.

    Args:
        array: An array, or a list or tuple of arrays.

    Raises:
        RuntimeError: ChainerX is not available in this Chainer.
    """
    from chainer.backends import _chainerx

    return _chainerx.to_chx(array)


def from_chx(array):
    """Converts ChainerX arrays to NumPy or CuPy arrays without copying.

    Other arrays pass through unchanged (without ChainerX, that is every
    array).

    Args:
        array: An array, or a list or tuple of arrays.

    Returns:
        The arrays, none of them a ChainerX array.
    """
    from chainer.backends import _chainerx

    return _chainerx.from_chx(array)


def __getattr__(name):
    # The iDeep and ChainerX devices live in their backend modules, imported
    # on first use.
    if name == "Intel64Device":
        from chainer.backends import intel64

        return intel64.Intel64Device
    if name == "ChainerxDevice":
        from chainer.backends import _chainerx

        return _chainerx.ChainerxDevice
    raise AttributeError(f"module 'chainer.backend' has no attribute {name!r}")
