"""The plain dicts behind :mod:`chainer.plugins`, built from hook results.

:mod:`chainer.plugins` owns the pluggy manager and the public API; this module
turns what the ``register_*`` hooks return into one table per kind, resolves
lazy ``"module:attr"`` references, and publishes kernel overrides into the dict
that :meth:`chainer.FunctionNode.apply` reads. It never imports pluggy.
"""

from __future__ import annotations

import importlib
import re

KINDS = ("backends", "functions", "links", "extensions", "datasets", "kernels")
SINGULAR = {
    "backends": "backend",
    "functions": "function",
    "links": "link",
    "extensions": "extension",
    "datasets": "dataset",
    "kernels": "kernel",
}
LAZY_REF = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class Entry:
    """One registered object, or the ``"module:attr"`` string naming it."""

    __slots__ = ("origin", "plugin", "resolved", "value")

    def __init__(self, value, plugin: str, origin: str):
        self.value = value
        self.plugin = plugin
        # How error messages name the plugin, e.g. "plugin 'x' (distribution
        # x-dist 1.0)".
        self.origin = origin
        self.resolved = not isinstance(value, str)


def describe_dist(dist: tuple) -> str:
    """Formats a ``(distribution, version)`` pair for messages."""
    name, version = dist
    if name is None:
        return "no distribution"
    return f"distribution {name} {version}"


def describe_plugin(plugin_name: str, dists: dict) -> str:
    """Names a plugin and its distribution for messages."""
    dist = dists.get(plugin_name)
    if dist is None:
        return f"plugin {plugin_name!r} (registered explicitly)"
    return f"plugin {plugin_name!r} ({describe_dist(dist)})"


def format_name(key) -> str:
    """Formats a registry key; kernel keys become ``'module.Class on backend'``."""
    if isinstance(key, tuple):
        node_class, backend_name = key
        return f"{node_class.__module__}.{node_class.__qualname__} on {backend_name}"
    return key


def sorted_names(table: dict) -> list:
    """Returns a table's keys in a stable order."""
    return sorted(table, key=format_name)


def resolve(ref: str):
    """Imports the object a ``"module:attr.path"`` string names."""
    module_name, _, attr_path = ref.partition(":")
    obj = importlib.import_module(module_name)
    for attr in attr_path.split("."):
        obj = getattr(obj, attr)
    return obj


def collect(manager, dists: dict) -> dict:
    """Calls every ``register_*`` hook and returns ``{kind: {key: Entry}}``.

    Raises:
        ValueError: Two plugins registered one key of one kind, or a value is
            neither an object nor a ``"module:attr"`` string.
        TypeError: A hook returned something other than a dict, or a bad key.
    """
    plugins = [plugin for _, plugin in manager.list_name_plugin()]
    tables: dict[str, dict] = {}
    for kind in KINDS:
        hook_name = "register_" + kind
        table: dict = {}
        # get_hookimpls() lists the most recently registered last.
        for impl in getattr(manager.hook, hook_name).get_hookimpls():
            if impl.hookwrapper or impl.wrapper:
                continue
            # Calling each plugin on its own tells who registered what; the
            # call still goes through pluggy, so tracing sees it.
            others = [p for p in plugins if p is not impl.plugin]
            caller = manager.subset_hook_caller(hook_name, remove_plugins=others)
            origin = describe_plugin(impl.plugin_name, dists)
            for result in caller():
                _add_results(kind, table, result, impl.plugin_name, origin)
        tables[kind] = table
    return tables


def _add_results(kind: str, table: dict, result, plugin_name: str, origin) -> None:
    where = f"{origin}, register_{kind}()"
    if not isinstance(result, dict):
        raise TypeError(
            f"{where} must return a dict of names to objects or 'module:attr' "
            f"strings, not {type(result).__name__}"
        )
    for key, value in result.items():
        if kind == "kernels":
            key = _kernel_key(key, where)
            if key is None:
                continue
        elif not isinstance(key, str) or not key:
            raise TypeError(f"{where} returned an invalid name {key!r}: use a str")
        if value is None or (isinstance(value, str) and not LAZY_REF.match(value)):
            raise ValueError(
                f"{where} returned {value!r} for {key!r}: expected an object or a "
                "'module:attr' string"
            )
        previous = table.get(key)
        if previous is not None:
            raise ValueError(
                f"{SINGULAR[kind]} {format_name(key)!r} is registered by both "
                f"{previous.origin} and {origin}; uninstall or unregister one "
                "of them"
            )
        table[key] = Entry(value, plugin_name, origin)


def _kernel_key(key, where: str):
    if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], str)):
        raise TypeError(
            f"{where} returned an invalid kernel key {key!r}: expected "
            "(FunctionNode class or 'module:Class', backend name)"
        )
    node_class, backend_name = key
    if isinstance(node_class, str):
        if not LAZY_REF.match(node_class):
            raise TypeError(
                f"{where} returned an invalid kernel key {key!r}: name the "
                "FunctionNode class as 'module:Class'"
            )
        node_class = _resolve_node_class(node_class, where)
        if node_class is None:
            return None
    if not isinstance(node_class, type):
        raise TypeError(f"{where} returned an invalid kernel key {key!r}: not a class")
    return (node_class, backend_name)


def _resolve_node_class(ref: str, where: str):
    module_name = ref.partition(":")[0]
    try:
        return resolve(ref)
    except ModuleNotFoundError as exc:
        # A kernel for a FunctionNode whose distribution is not installed can
        # never be used; any other import failure is a real bug.
        if exc.name is not None and (
            module_name == exc.name or module_name.startswith(exc.name + ".")
        ):
            return None
        raise
    except (ImportError, AttributeError) as exc:
        raise ImportError(f"{where}: cannot resolve {ref!r}: {exc}") from exc


def value(entry: Entry, kind: str, key):
    """Returns an entry's object, importing a ``"module:attr"`` string once."""
    if not entry.resolved:
        ref = entry.value
        try:
            obj = resolve(ref)
        except (ImportError, AttributeError) as exc:
            raise ImportError(
                f"{SINGULAR[kind]} {format_name(key)!r} of {entry.origin} points "
                f"at {ref!r}, which cannot be loaded: {type(exc).__name__}: {exc}"
            ) from exc
        if not callable(obj):
            raise TypeError(
                f"{SINGULAR[kind]} {format_name(key)!r} of {entry.origin} "
                f"resolved to a non-callable {type(obj).__name__} at {ref!r}"
            )
        entry.value = obj
        entry.resolved = True
    return entry.value


class _LazyKernel:
    """Stands in for a kernel given as a 'module:attr' string until first call."""

    __slots__ = ("_entry", "_key", "_overrides")

    def __init__(self, key, entry: Entry, overrides: dict):
        self._key = key
        self._entry = entry
        self._overrides = overrides

    def __call__(self, *args, **kwargs):
        kernel = value(self._entry, "kernels", self._key)
        # Later calls go straight to the kernel.
        if self._overrides.get(self._key) is self:
            self._overrides[self._key] = kernel
        return kernel(*args, **kwargs)


def publish_kernels(table: dict) -> None:
    """Rebuilds FunctionNode's kernel dict in place from a kernels table."""
    from chainer import function_node

    overrides = function_node._kernel_overrides
    fresh = {
        key: entry.value if entry.resolved else _LazyKernel(key, entry, overrides)
        for key, entry in table.items()
    }
    overrides.clear()
    overrides.update(fresh)
    # A newly registered backend may own array types that were cached as
    # "not an array" before it existed.
    from chainer import backend

    backend._non_array_types.clear()
