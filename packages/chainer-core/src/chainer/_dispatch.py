"""The plain tables that the hot paths read, filled by :mod:`chainer.plugins`.

This is a leaf module: it imports nothing from ``chainer``, so the registry,
:mod:`chainer.function_node`, :mod:`chainer._update_rule` and
:mod:`chainer.backend` can all read it without import cycles. The registry
writes here only through the ``publish_*`` functions; the hot paths read the
tables (``kernel_cache``, ``module_by_type``, ``device_class_by_type``,
``non_array_types``) directly.

Classes are named by ``"module:QualName"`` strings (``"cupy:ndarray"``,
``"chainer.functions.activation.relu:ReLU"``), so that registering a kernel or
an array type imports nothing. A class is matched by walking its ``__mro__``
once; the answer is cached per class.
"""

from __future__ import annotations

from typing import Any

# ("module:QualName", backend name) -> kernel(node, inputs).
kernels: dict[tuple[str, str], Any] = {}

# "module:QualName" of an array type -> the name of the backend that owns it.
array_types: dict[str, str] = {}

# Backends that declare no array types: resolved only when a type matches no
# declaration (see chainer.backend).
undeclared_backends: list[str] = []

# The array-type caches of chainer.backend, filled on first sight of a type:
# array type -> its array module, and -> the Device class that owns it.
module_by_type: dict[type, Any] = {}
device_class_by_type: dict[type, type] = {}
# Types known not to be arrays of any registered backend.
non_array_types: set[type] = set()
# Backends declaring no array types that failed to load during a type lookup
# (reported once).
failed_backends: set[str] = set()

# Counts the registry's publications: a reader that derived something from the
# registry (e.g. the chainer.backends.cuda facade) compares it with the value
# it saw then to know whether to look again.
generation = 0

# Methods whose presence in a class's own namespace means it computes its own
# way: a kernel registered for one of its bases does not apply to it.
_OWN_COMPUTATION = (
    "forward",
    "forward_cpu",
    "forward_gpu",
    "update_core",
    "update_core_cpu",
    "update_core_gpu",
)

# The key that keeps ``kernel_cache`` non-empty while kernels are registered.
_ACTIVE = (None, "")


def class_name(cls: type) -> str:
    """Returns the ``"module:QualName"`` string that names a class."""
    return f"{cls.__module__}:{cls.__qualname__}"


def find_kernel(node_class: type, backend_name: str):
    """Returns the kernel for ``node_class`` on a backend, or None (uncached).

    The class's ``__mro__`` is walked from the class itself: the first class
    with a registered kernel wins, so a subclass keeps its base's kernel, unless
    a class on the way defines its own ``forward`` (or ``update_core*``), which
    the base's kernel would not compute.
    """
    if not kernels:
        return None
    for cls in node_class.__mro__:
        kernel = kernels.get((class_name(cls), backend_name))
        if kernel is not None:
            return kernel
        own = cls.__dict__
        for method in _OWN_COMPUTATION:
            if method in own:
                return None
    return None


class _KernelCache(dict):
    """``cache[(node class, backend name)]``: the kernel or None.

    A view of :data:`class_kernels` (where the per-class answers are cached)
    by pair. Its only entry is a marker, present while any kernel is
    registered or the registry is still pending, so that an empty cache tells
    :meth:`chainer.FunctionNode.apply` and the update rules at once that
    there is nothing to look up.
    """

    __slots__ = ()

    def __missing__(self, key):
        node_class, backend_name = key
        by_backend = class_kernels.get(node_class)
        if by_backend is None:
            by_backend = kernels_of(node_class)
        return by_backend.get(backend_name)

    def __contains__(self, key) -> bool:  # type: ignore[override]
        # "Is there a kernel for (class, backend)?", as a plain dict answered.
        if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], type)):
            return False
        return self[key] is not None


kernel_cache = _KernelCache()

# node class -> {backend name: kernel}, empty for a class without kernels: what
# FunctionNode.apply reads, one plain dict lookup per call (a class without
# kernels then costs no backend lookup at all). Cleared on every publication.
class_kernels: dict[type, dict] = {}


def kernels_of(node_class: type) -> dict:
    """Returns ``{backend name: kernel}`` for a node class, and caches it.

    Loads the registry first if it is still pending (see :func:`set_loader`).
    """
    if _loader is not None:
        _load_registry()
    found = {}
    for backend_name in {backend for _, backend in kernels}:
        kernel = find_kernel(node_class, backend_name)
        if kernel is not None:
            found[backend_name] = kernel
    class_kernels[node_class] = found
    return found


# Loads the plugin registry, which publishes the kernels here; set by
# ``import chainer`` (see :func:`set_loader`) and called once, by the first
# kernel lookup, so that the kernels of installed plugins apply from the first
# op on even where nothing else (a Link, a device lookup) has loaded the
# registry yet.
_loader = None


def core_hook(key: tuple[str, str]):
    """The function a plugin registered under one of core's hook keys, or None.

    Core's hooks (``chainer.utils._parallel``'s ``engage`` and
    ``describe_threads``, ``chainer.utils.gemm``'s ``matmul`` and
    ``right_operand``) are looked up by
    their ``("module:function", "numpy")`` key; the registry is loaded first
    if it is still pending.
    """
    if _loader is not None:
        _load_registry()
    return kernels.get(key)


def set_loader(load) -> None:
    """Makes the first kernel lookup call ``load()`` (once) before looking up.

    Until then the cache holds its marker entry, so that
    :meth:`chainer.FunctionNode.apply` does look up; a registry that publishes
    no kernels leaves the cache empty again (the fast exit).
    """
    global _loader
    _loader = load
    if load is not None:
        dict.__setitem__(kernel_cache, _ACTIVE, None)


def _load_registry() -> None:
    global _loader
    load, _loader = _loader, None
    if load is not None:
        load()
        if not kernels:
            kernel_cache.clear()


def publish_kernels(table: dict) -> None:
    """Replaces the kernel table and clears the per-class cache."""
    global generation
    generation += 1
    kernels.clear()
    kernels.update(table)
    kernel_cache.clear()
    class_kernels.clear()
    if kernels:
        dict.__setitem__(kernel_cache, _ACTIVE, None)


def replace_kernel(stand_in, kernel) -> None:
    """Swaps a lazily resolved kernel's stand-in for the kernel itself."""
    for key, value in list(kernels.items()):
        if value is stand_in:
            kernels[key] = kernel
    for by_backend in class_kernels.values():
        for backend_name, value in list(by_backend.items()):
            if value is stand_in:
                by_backend[backend_name] = kernel


def find_array_backend(array_type: type) -> str | None:
    """Returns the backend name declared for ``array_type`` or a base, or None.

    Only the declared ``"module:QualName"`` strings are compared, so nothing is
    imported.
    """
    if not array_types:
        return None
    for cls in array_type.__mro__:
        name = array_types.get(class_name(cls))
        if name is not None:
            return name
    return None


def publish_array_types(table: dict, undeclared: list) -> None:
    """Replaces the declared array types and the backends that declare none.

    Types cached as "not an array" are forgotten (a new backend may own them),
    and so are the backends that failed to load during a type lookup.
    """
    global generation
    generation += 1
    array_types.clear()
    array_types.update(table)
    undeclared_backends[:] = undeclared
    non_array_types.clear()
    failed_backends.clear()


def register_array_type(array_type: type, device_class: type, xp) -> None:
    """Caches the Device class and array module that own ``array_type``."""
    device_class_by_type[array_type] = device_class
    module_by_type[array_type] = xp
    non_array_types.clear()
