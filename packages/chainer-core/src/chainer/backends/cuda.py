"""Legacy CUDA utilities, ``chainer.backends.cuda`` (also ``chainer.cuda``).

This module is a facade over whichever implementation the backend registered
as ``'cupy'`` provides. That backend's Device class names it in its documented
attribute ``legacy_cuda_module`` (an importable module name; see the hookspec
``register_backends``); chainer-cuda's backend names its CuPy implementation
there. The facade asks the plugin registry on first attribute access, and again
after the registry changes (a plugin registered or unregistered), so importing
it imports no backend.

When no such backend is registered, or its implementation says CUDA is
unusable (no CuPy, no driver or device), the answers come from the host-side
implementation: ``available`` is False, the helpers that make sense for NumPy
arrays work on them (``to_cpu``, ``get_array_module``,
``get_device_from_array``, ``memoize``, ``fuse``...), and the ones that need a
GPU raise a ``RuntimeError`` naming what to install, in the backend's words
when it gave a reason.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from chainer import _dispatch
from chainer.backends import _cuda_host
from chainer.backends import _dummy_device

# The host's stand-in device is the same object for every implementation, so
# it is a plain attribute (an implementation module may import it from here).
DummyDeviceType = _dummy_device.DummyDeviceType
DummyDevice = _dummy_device.DummyDevice

# The host-side module's own set-up names, which the facade does not show.
_HOST_ONLY = frozenset({"DEFAULT_REASON", "set_unavailable_reason"})

# (registry generation, {name: value}) of the last resolution, or None.
_resolved: tuple[int, dict] | None = None


def _namespace() -> dict:
    """Returns the names the facade answers with, resolved once per registry."""
    global _resolved
    resolved = _resolved
    if resolved is not None and resolved[0] == _dispatch.generation:
        return resolved[1]
    module, reason = _implementation()
    if module is None:
        _cuda_host.set_unavailable_reason(reason)
        namespace = {
            k: v for k, v in _public_names(_cuda_host).items() if k not in _HOST_ONLY
        }
    else:
        namespace = _public_names(module)
    # Read after resolving: asking the registry may have loaded it.
    _resolved = (_dispatch.generation, namespace)
    return namespace


def _public_names(module: ModuleType) -> dict:
    return {k: v for k, v in vars(module).items() if not k.startswith("__")}


def _implementation() -> tuple[ModuleType | None, str | None]:
    """Returns ``(module, None)`` for a usable CUDA, else ``(None, reason)``.

    The reason is None where the default message (what to install) fits.
    """
    from chainer import plugins

    try:
        device_class = plugins.get_backend("cupy")
    except KeyError:
        return None, None
    except Exception as exc:  # the backend's module failed to load
        return None, (
            f"CUDA is not available: the registered backend '@cupy' cannot be "
            f"loaded ({type(exc).__name__}: {exc})"
        )
    ref = getattr(device_class, "legacy_cuda_module", None)
    if ref is None:
        return None, None
    if isinstance(ref, ModuleType):
        module = ref
    elif isinstance(ref, str):
        try:
            module = importlib.import_module(ref)
        except ImportError as exc:
            return None, (
                f"CUDA is not available: {device_class.__qualname__}."
                f"legacy_cuda_module names {ref!r}, which cannot be imported "
                f"({exc})"
            )
    else:
        return None, (
            f"CUDA is not available: {device_class.__qualname__}."
            f"legacy_cuda_module must be a module name, not {ref!r}"
        )
    if getattr(module, "available", False):
        return module, None
    return None, getattr(module, "unavailable_reason", None)


def __getattr__(name: str):
    if name == "__all__":
        return sorted(k for k in _namespace() if not k.startswith("_"))
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        return _namespace()[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list:
    return sorted(set(globals()) | set(_namespace()))
