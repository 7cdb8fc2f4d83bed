"""The plain dicts behind :mod:`chainer.plugins`, built from hook results.

:mod:`chainer.plugins` owns the pluggy manager and the public API; this module
calls the ``register_*`` hooks one plugin at a time, checks what they return,
settles name conflicts, resolves lazy ``"module:attr"`` references, and
publishes kernels and array types into :mod:`chainer._dispatch`, which the hot
paths read. It never imports pluggy.

A plugin whose hook raises or returns something unusable is *contained*: its
registrations are dropped, the failure is recorded, and the caller decides
whether to warn (plugins found through entry points) or to raise (the plugin
that :func:`chainer.plugins.register` was asked to add).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
from collections.abc import Callable
from typing import Any

from chainer import _dispatch

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

# Where each kind appears as an attribute, relative to the ``chainer`` package.
_FACADES = {
    "functions": ("functions",),
    "links": ("links",),
    "datasets": ("datasets",),
    "extensions": ("training", "extensions"),
}


class Entry:
    """One registered object, or the ``"module:attr"`` string naming it."""

    __slots__ = (
        "array_types",
        "first_party",
        "origin",
        "plugin",
        "resolved",
        "shown",
        "value",
    )

    def __init__(self, value, plugin: str, origin: str, first_party: bool = False):
        self.value = value
        self.plugin = plugin
        # How error messages name the plugin, e.g. "plugin 'x' (distribution
        # x-dist 1.0)".
        self.origin = origin
        self.first_party = first_party
        self.resolved = not isinstance(value, str)
        # The key as the plugin gave it (kernels: the class, when one was given).
        self.shown: Any = None
        # Backends: the "module:QualName" strings of the array types declared.
        self.array_types: tuple = ()


class PluginFailure(Exception):
    """A plugin's hook raised or returned something unusable."""

    def __init__(self, hook: str, message: str):
        super().__init__(message)
        self.hook = hook


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
        node, backend_name = key
        if isinstance(node, type):
            node = _dispatch.class_name(node)
        return f"{node.replace(':', '.')} on {backend_name}"
    return key


def sorted_names(table: dict) -> list:
    """Returns a table's keys in a stable order."""
    return sorted(table, key=format_name)


def shown_names(table: dict) -> list:
    """Returns the keys as the plugins gave them (kernel classes stay classes)."""
    return [table[key].shown for key in sorted_names(table)]


def resolve(ref: str):
    """Imports the object a ``"module:attr.path"`` string names."""
    module_name, _, attr_path = ref.partition(":")
    obj = importlib.import_module(module_name)
    for attr in attr_path.split("."):
        obj = getattr(obj, attr)
    return obj


# --------------------------------------------------------------------------
# Collecting hook results
# --------------------------------------------------------------------------


def collect(
    manager,
    dists: dict,
    *,
    first_party: frozenset = frozenset(),
    strict: str | None = None,
    report: Callable[[str], None] | None = None,
):
    """Calls every ``register_*`` hook, one plugin at a time.

    Args:
        manager: The pluggy plugin manager.
        dists (dict): ``{plugin name: (distribution, version)}``.
        first_party (frozenset): Names of the plugins of Chainer's own
            distributions; they win name conflicts against the others.
        strict (str): The plugin being registered explicitly: its failures and
            conflicts raise instead of being contained.
        report: Called with the message of each problem that is contained.

    Returns:
        tuple: ``(tables, failures)``: ``{kind: {key: Entry}}`` and
        ``{plugin name: PluginFailure}`` for the plugins that were dropped.
    """
    by_plugin: dict[str, list] = {name: [] for name, _ in manager.list_name_plugin()}
    for kind in KINDS:
        hook_name = "register_" + kind
        for impl in getattr(manager.hook, hook_name).get_hookimpls():
            if not (impl.hookwrapper or impl.wrapper):
                by_plugin.setdefault(impl.plugin_name, []).append((kind, impl))
    plugins = [plugin for _, plugin in manager.list_name_plugin()]
    staged: dict[str, list] = {}
    failures: dict[str, PluginFailure] = {}
    for plugin_name, impls in by_plugin.items():
        origin = describe_plugin(plugin_name, dists)
        entries: list = []
        try:
            for kind, impl in impls:
                # Calling each plugin on its own tells who registered what; the
                # call still goes through pluggy, so tracing sees it.
                others = [p for p in plugins if p is not impl.plugin]
                caller = manager.subset_hook_caller(
                    "register_" + kind, remove_plugins=others
                )
                where = f"{origin}, register_{kind}()"
                try:
                    results = caller()
                except Exception as exc:
                    if plugin_name == strict:
                        raise
                    raise PluginFailure(
                        f"register_{kind}",
                        f"{where} raised {type(exc).__name__}: {exc}",
                    ) from exc
                first = plugin_name in first_party
                for result in results:
                    try:
                        _check_results(
                            kind, entries, result, plugin_name, origin, first
                        )
                    except Exception as exc:
                        if plugin_name == strict:
                            raise
                        raise PluginFailure(f"register_{kind}", str(exc)) from exc
        except PluginFailure as failure:
            failures[plugin_name] = failure
            if report is not None:
                report(f"{failure}; the plugin is skipped")
            continue
        staged[plugin_name] = entries
    tables: dict[str, dict] = {kind: {} for kind in KINDS}
    for entries in staged.values():
        for kind, key, entry in entries:
            _merge(kind, tables[kind], key, entry, strict, report)
            if kind in _FACADES and not entry.first_party and report is not None:
                _check_shadowing(kind, key, entry, tables[kind], report)
    return tables, failures


def _check_results(kind, entries, result, plugin_name, origin, first_party) -> None:
    where = f"{origin}, register_{kind}()"
    if result is None:
        return
    if not isinstance(result, dict):
        raise TypeError(
            f"{where} must return a dict of names to objects or 'module:attr' "
            f"strings, not {type(result).__name__}"
        )
    for key, value in result.items():
        shown = key
        array_types: tuple = ()
        if kind == "kernels":
            key = _kernel_key(key, where)
            if key is None:
                continue
        elif not isinstance(key, str) or not key:
            raise TypeError(f"{where} returned an invalid name {key!r}: use a str")
        if kind == "backends" and isinstance(value, dict):
            value, array_types = _backend_spec(key, value, where)
        if value is None or (isinstance(value, str) and not LAZY_REF.match(value)):
            raise ValueError(
                f"{where} returned {value!r} for {format_name(key)!r}: expected an "
                "object or a 'module:attr' string"
            )
        entry = Entry(value, plugin_name, origin, first_party)
        entry.shown = shown
        entry.array_types = array_types
        if kind == "backends" and entry.resolved:
            check_backend(value, key, origin)
        entries.append((kind, key, entry))


def _backend_spec(name: str, spec: dict, where: str):
    unknown = set(spec) - {"device", "array_types"}
    if unknown or "device" not in spec:
        raise ValueError(
            f"{where} returned {spec!r} for backend {name!r}: a backend given as "
            "a dict has the keys 'device' (the Device class or a 'module:attr' "
            "string) and 'array_types' (a list of 'module:QualName' strings)"
        )
    array_types = spec.get("array_types", ())
    if isinstance(array_types, str) or not all(
        isinstance(t, str) and LAZY_REF.match(t) for t in array_types
    ):
        raise ValueError(
            f"{where} declared array types {array_types!r} for backend {name!r}: "
            "expected a list of 'module:QualName' strings such as 'cupy:ndarray'"
        )
    return spec["device"], tuple(array_types)


def _kernel_key(key, where: str):
    if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], str)):
        raise TypeError(
            f"{where} returned an invalid kernel key {key!r}: expected "
            "(FunctionNode class or 'module:Class', backend name)"
        )
    node, backend_name = key
    if isinstance(node, str):
        if not LAZY_REF.match(node):
            raise TypeError(
                f"{where} returned an invalid kernel key {key!r}: name the "
                "FunctionNode class as 'module:Class'"
            )
        # A kernel for a FunctionNode whose distribution is not installed can
        # never be used. Only the top-level package is looked for: nothing is
        # imported.
        if not _top_level_exists(node.partition(":")[0].partition(".")[0]):
            return None
        return (node, backend_name)
    if not isinstance(node, type):
        raise TypeError(f"{where} returned an invalid kernel key {key!r}: not a class")
    return (_dispatch.class_name(node), backend_name)


def _top_level_exists(package: str) -> bool:
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        return False


def _merge(kind, table, key, entry, strict, report) -> None:
    previous = table.get(key)
    if previous is None:
        table[key] = entry
        return
    if strict is not None and strict in (previous.plugin, entry.plugin):
        raise ValueError(
            f"{SINGULAR[kind]} {format_name(key)!r} is registered by both "
            f"{previous.origin} and {entry.origin}; uninstall or unregister one "
            "of them"
        )
    if entry.first_party and not previous.first_party:
        winner, loser = entry, previous
        table[key] = entry
    else:
        winner, loser = previous, entry
    if report is not None:
        reason = (
            "Chainer's own distributions win"
            if winner.first_party and not loser.first_party
            else "the first one loaded wins"
        )
        report(
            f"{SINGULAR[kind]} {format_name(key)!r} of {loser.origin} is ignored: "
            f"{winner.origin} registers the same name ({reason}); rename it, or "
            "disable one plugin with CHAINER_DISABLED_PLUGINS"
        )


def _check_shadowing(kind, key, entry, table, report) -> None:
    if table.get(key) is not entry:
        return  # dropped in a conflict, already reported
    facade = ".".join(("chainer", *_FACADES[kind]))
    if _is_submodule(_FACADES[kind], key):
        report(
            f"{SINGULAR[kind]} {key!r} of {entry.origin} has the name of the "
            f"submodule {facade}.{key}, so {facade}.{key} is the module, not "
            f"the plugin's object; rename it (plugins.get_{SINGULAR[kind]}"
            f"({key!r}) still finds it)"
        )
        return
    import sys

    module = sys.modules.get(facade)
    if module is not None and (
        key in vars(module) or key in getattr(module, "__all__", ())
    ):
        report(
            f"{SINGULAR[kind]} {key!r} of {entry.origin} shadows the built-in "
            f"{facade}.{key}, so it can never be reached as {facade}.{key}; "
            "rename it"
        )


def _is_submodule(parts: tuple, name: str) -> bool:
    import chainer

    for root in chainer.__path__:
        base = os.path.join(root, *parts, name)
        if os.path.isfile(base + ".py") or os.path.isfile(
            os.path.join(base, "__init__.py")
        ):
            return True
    return False


# --------------------------------------------------------------------------
# Resolving and publishing
# --------------------------------------------------------------------------


def check_backend(cls, name: str, origin: str) -> None:
    """Checks a backend's Device class against the documented contract.

    Uses ``chainer._backend_contract.check_device_class`` when that module
    exists; raises its named error for a class that breaks the contract.
    """
    try:
        # Written separately; until it exists there is nothing to check.
        contract = importlib.import_module("chainer._backend_contract")
    except ModuleNotFoundError as exc:
        if exc.name != "chainer._backend_contract":
            raise
        return
    contract.check_device_class(cls, name, origin)


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
        if kind == "backends":
            check_backend(obj, key, entry.origin)
        entry.value = obj
        entry.resolved = True
    return entry.value


class _LazyKernel:
    """Stands in for a kernel given as a 'module:attr' string until first call."""

    __slots__ = ("_entry", "_key")

    def __init__(self, key, entry: Entry):
        self._key = key
        self._entry = entry

    def __call__(self, *args, **kwargs):
        kernel = value(self._entry, "kernels", self._key)
        # Later calls go straight to the kernel.
        _dispatch.replace_kernel(self, kernel)
        return kernel(*args, **kwargs)


def publish(tables: dict) -> None:
    """Publishes kernels and declared array types into :mod:`chainer._dispatch`."""
    _dispatch.publish_kernels(
        {
            key: entry.value if entry.resolved else _LazyKernel(key, entry)
            for key, entry in tables["kernels"].items()
        }
    )
    array_types: dict[str, str] = {}
    undeclared = []
    for name, entry in tables["backends"].items():
        for type_name in entry.array_types:
            array_types.setdefault(type_name, name)
        if not entry.array_types:
            undeclared.append(name)
    # This also forgets the types cached as "not an array": a newly
    # registered backend may own some of them.
    _dispatch.publish_array_types(array_types, undeclared)
