"""Chainer's plugin registry, built on pluggy.

Distributions extend Chainer through entry points in the group
``chainer.plugins``; each entry point names a plugin module whose
:data:`hookimpl`-marked functions (see :mod:`chainer._hookspecs`) return what
the plugin provides: backends, functions, links, trainer extensions, datasets
and kernel overrides. chainer-core registers its own plugin, ``chainer._core_plugin``,
the same way.

Loading happens once, on the first call to :func:`ensure_loaded` or to any
registry accessor, never at ``import chainer``. The hook results are copied into
plain dicts that the rest of Chainer reads; no hook is ever called per op.

Environment variables:

* ``CHAINER_DISABLE_PLUGIN_AUTOLOAD=1``: load no entry points; only the core
  plugin and plugins passed to :func:`register` are active.
* ``CHAINER_DISABLED_PLUGINS=name,...``: skip the named entry-point plugins
  (entry-point names or distribution names); ``core`` cannot be disabled.
* ``CHAINER_TRACE_PLUGINS=1``: write every hook call and its result to stderr.

A plugin found through an entry point that fails (its module does not import,
a hook raises or returns something unusable, it implements an unknown hook) is
reported once with a :class:`chainer.warnings.PluginWarning` and skipped;
:func:`list_plugins` lists it with its ``error``. A name it may have provided
then fails with a message that mentions it. Of two plugins registering one
name, Chainer's own distributions win over third parties (else the first one
loaded), and the other registration is dropped with a warning naming both.
:func:`register`, being an explicit request, raises instead.

This is the only module of Chainer that imports pluggy, and it does so lazily.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import threading
from typing import TYPE_CHECKING
from typing import NamedTuple

from chainer import _dispatch
from chainer import _plugin_tables as _tables
from chainer.utils import install_hint

if TYPE_CHECKING:
    import pluggy

    hookimpl: pluggy.HookimplMarker
    hookspec: pluggy.HookspecMarker

__all__ = [
    "PluginInfo",
    "ensure_loaded",
    "get_backend",
    "get_dataset",
    "get_extension",
    "get_function",
    "get_kernel",
    "get_link",
    "hookimpl",
    "hookspec",
    "list_plugins",
    "names",
    "register",
    "unregister",
]

_PROJECT = "chainer"
_GROUP = "chainer.plugins"
_CORE_NAME = "core"
_CORE_MODULE = "chainer._core_plugin"
_CORE_DISTRIBUTION = "chainer-core"
# Chainer's own distributions: their plugins win name conflicts.
_FIRST_PARTY = frozenset(install_hint.DISTRIBUTIONS)
_FALSE_VALUES = ("", "0", "false", "no", "off")


def __getattr__(name: str):
    # The markers need pluggy; creating them on first use keeps pluggy out of
    # ``import chainer``.
    if name in ("hookimpl", "hookspec"):
        import pluggy

        globals()["hookimpl"] = pluggy.HookimplMarker(_PROJECT)
        globals()["hookspec"] = pluggy.HookspecMarker(_PROJECT)
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class PluginInfo(NamedTuple):
    """What :func:`list_plugins` reports about one registered plugin.

    Attributes:
        name (str): The plugin name (the entry point name for loaded plugins).
        distribution (str or None): The distribution that ships the plugin, or
            None when it was registered explicitly and declares no entry point.
        version (str or None): That distribution's version.
        hooks (tuple of str): The hooks the plugin implements.
        registered (dict): For each kind (``'backends'``, ``'functions'``,
            ``'links'``, ``'extensions'``, ``'datasets'``, ``'kernels'``), the
            sorted names the plugin registered. Kernel names are
            ``(FunctionNode class or 'module:Class', backend name)`` pairs, as
            the plugin gave them.
        error (str or None): Why the plugin was skipped (its import or a hook
            failed), or None for a plugin that loaded.
    """

    name: str
    distribution: str | None
    version: str | None
    hooks: tuple
    registered: dict
    error: str | None = None


class _NotRegisteredError(KeyError):
    """A registry lookup found nothing under the requested name.

    Attributes:
        hint (str): ``''``, or a note naming the plugins that failed to load
            and so may be the ones that provide the name.
    """

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message + hint)
        self.hint = hint

    def __str__(self) -> str:
        # KeyError would show the message as a quoted repr.
        return str(self.args[0])


class _Failed(NamedTuple):
    """A plugin that was skipped: where it came from and why."""

    distribution: tuple
    hooks: tuple
    error: str


class _State:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.manager: pluggy.PluginManager | None = None
        self.loaded = False
        self.loading = False
        self.autoload = True
        # plugin name -> (distribution, version), for entry-point plugins.
        self.dists: dict[str, tuple] = {}
        self.tables: dict[str, dict] = {kind: {} for kind in _tables.KINDS}
        # Entry-point plugins that failed, by name.
        self.failed: dict[str, _Failed] = {}
        # Messages already warned about: each problem is reported once.
        self.reported: set[str] = set()


_state = _State()


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in _FALSE_VALUES


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------


def ensure_loaded() -> None:
    """Loads the plugins once: the core plugin, then the installed entry points.

    Entry points of group ``chainer.plugins`` are skipped when the environment
    variable ``CHAINER_DISABLE_PLUGIN_AUTOLOAD`` is set to ``1``, and those
    named in ``CHAINER_DISABLED_PLUGINS`` are skipped one by one. Calling this
    again is cheap. Every registry accessor calls it.

    An entry-point plugin that fails to import, whose hook raises or returns
    something unusable, or that implements an unknown hook does not make this
    fail: it is reported once with a :class:`chainer.warnings.PluginWarning`
    naming it, its distribution and the hook, and skipped. Loading imports the
    plugin modules only; ``"module:attr"`` registrations are imported on use.
    """
    if _state.loaded:
        return
    with _state.lock:
        # A plugin module that touches the registry while it is being loaded
        # sees the registry as it stands rather than recursing.
        if _state.loaded or _state.loading:
            return
        _state.loading = True
        try:
            _load()
        finally:
            _state.loading = False


def _report(message: str) -> None:
    if message in _state.reported:
        return
    _state.reported.add(message)
    import warnings

    from chainer import warnings as chainer_warnings

    warnings.warn(message, chainer_warnings.PluginWarning, stacklevel=3)


def _load() -> None:
    import pluggy

    from chainer import _hookspecs

    manager = pluggy.PluginManager(_PROJECT)
    manager.add_hookspecs(_hookspecs)
    if _env_flag("CHAINER_TRACE_PLUGINS"):
        manager.add_hookcall_monitoring(_trace_before, _trace_after)
    manager.register(importlib.import_module(_CORE_MODULE), name=_CORE_NAME)
    dists: dict[str, tuple] = {}
    failed: dict[str, _Failed] = {}
    autoload = not _env_flag("CHAINER_DISABLE_PLUGIN_AUTOLOAD")
    if autoload:
        _load_entry_points(manager, dists, failed)
    for name, message in _check_pending(manager, dists):
        failed[name] = _Failed(
            dists.get(name, (None, None)), _hooks_of(manager, name), message
        )
        _report(f"{message}; the plugin is skipped")
        manager.unregister(name=name)
    tables, failures = _tables.collect(
        manager, dists, first_party=_first_party(dists), report=_report
    )
    for name, failure in failures.items():
        failed[name] = _Failed(
            dists.get(name, (None, None)), _hooks_of(manager, name), str(failure)
        )
        manager.unregister(name=name)
    _tables.publish(tables)
    _state.tables = tables
    _state.dists = dists
    _state.failed = failed
    _state.autoload = autoload
    _state.manager = manager
    _state.loaded = True


def _hooks_of(manager, name: str) -> tuple:
    plugin = manager.get_plugin(name)
    if plugin is None:
        return ()
    return tuple(sorted(c.name for c in manager.get_hookcallers(plugin) or ()))


def _first_party(dists: dict) -> frozenset:
    return frozenset(
        [_CORE_NAME]
        + [
            name
            for name, (dist, _) in dists.items()
            if _normalize(dist) in _FIRST_PARTY
        ]
    )


def _normalize(name: str | None) -> str:
    return (name or "").strip().lower().replace("_", "-").replace(".", "-")


def _disabled_plugins() -> set:
    raw = os.environ.get("CHAINER_DISABLED_PLUGINS", "")
    names = {_normalize(n) for n in raw.split(",") if n.strip()}
    refused = names & {_CORE_NAME, _CORE_DISTRIBUTION}
    if refused:
        _report(
            f"CHAINER_DISABLED_PLUGINS names {', '.join(sorted(refused))}: the "
            "core plugin (the NumPy backend) cannot be disabled; it stays loaded"
        )
    return names - refused


def _load_entry_points(manager, dists: dict, failed: dict) -> None:
    from importlib import metadata

    disabled = _disabled_plugins()
    matched: set = set()
    # Chainer's own distributions first: on a name conflict they win anyway,
    # and the rest load in a stable order.
    eps = sorted(
        metadata.entry_points(group=_GROUP),
        key=lambda ep: (
            _normalize(_dist_of(ep)[0]) not in _FIRST_PARTY,
            _dist_of(ep)[0] or "",
            ep.name,
        ),
    )
    for ep in eps:
        dist = _dist_of(ep)
        wanted = {_normalize(ep.name), _normalize(dist[0])} & disabled
        if wanted and ep.name != _CORE_NAME:
            matched |= wanted
            continue
        described = f"chainer plugin {ep.name!r} ({_tables.describe_dist(dist)})"
        existing = manager.get_plugin(ep.name)
        if existing is not None and getattr(existing, "__name__", None) != ep.value:
            _report(
                f"two chainer plugins are named {ep.name!r}: "
                f"{_tables.describe_plugin(ep.name, dists)} and the entry point "
                f"{ep.value!r} of {_tables.describe_dist(dist)}; the second is "
                "skipped (rename one entry point)"
            )
            continue
        try:
            plugin = ep.load()
        except Exception as exc:
            message = (
                f"{described} could not be loaded from {ep.value!r}: "
                f"{type(exc).__name__}: {exc}"
            )
            failed[ep.name] = _Failed(dist, (), message)
            _report(f"{message}; the plugin is skipped")
            continue
        if existing is plugin:
            dists.setdefault(ep.name, dist)
            continue
        # The same module behind a second name (the core plugin is registered
        # before its own entry point is seen) is one plugin.
        other = manager.get_name(plugin)
        if other is not None:
            dists.setdefault(other, dist)
            continue
        _warn_unmarked_hooks(plugin, described)
        try:
            manager.register(plugin, name=ep.name)
        except Exception as exc:
            # pluggy rejects a hook with arguments the spec does not have.
            message = f"{described} was rejected: {type(exc).__name__}: {exc}"
            failed[ep.name] = _Failed(dist, (), message)
            _report(f"{message}; the plugin is skipped")
            if manager.is_registered(plugin):
                manager.unregister(plugin)
            continue
        dists[ep.name] = dist
    unknown = disabled - matched
    if unknown:
        _report(
            f"CHAINER_DISABLED_PLUGINS names {', '.join(sorted(unknown))}, which "
            "no installed chainer plugin (entry-point or distribution name) has"
        )


def _warn_unmarked_hooks(plugin, described: str) -> None:
    # pluggy silently ignores a function that is not marked as a hook.
    for attr, obj in sorted(vars(plugin).items()):
        if (
            attr.startswith("register_")
            and inspect.isfunction(obj)
            and getattr(obj, _PROJECT + "_impl", None) is None
        ):
            _report(
                f"{described} has a function {attr}() without "
                "@chainer.plugins.hookimpl, so it is not called; mark it"
            )


def _dist_of(ep) -> tuple:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return (None, None)
    return (dist.name, dist.version)


def _check_pending(manager, dists: dict) -> list:
    """Returns ``[(plugin name, message)]`` for hooks that no spec declares."""
    known = [name for name in vars(manager.hook) if not name.startswith("_")]
    specified = [name for name in known if getattr(manager.hook, name).has_spec()]
    problems = []
    for hook_name in known:
        caller = getattr(manager.hook, hook_name)
        if caller.has_spec():
            continue
        for impl in caller.get_hookimpls():
            if impl.optionalhook:
                continue
            import difflib  # only on this error path: it costs 1 ms to import

            close = difflib.get_close_matches(hook_name, specified, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            problems.append(
                (
                    impl.plugin_name,
                    f"{_tables.describe_plugin(impl.plugin_name, dists)} implements "
                    f"{hook_name!r}, which is not a chainer hook{hint} "
                    f"(chainer's hooks: {', '.join(sorted(specified))})",
                )
            )
    return problems


def _trace_before(hook_name, impls, kwargs) -> None:
    plugins = ", ".join(impl.plugin_name for impl in impls)
    sys.stderr.write(f"chainer.plugins: {hook_name}() -> [{plugins}]\n")


def _trace_after(outcome, hook_name, impls, kwargs) -> None:
    if outcome.exception is None:
        sys.stderr.write(
            f"chainer.plugins: {hook_name} returned {outcome.get_result()!r}\n"
        )
    else:
        sys.stderr.write(f"chainer.plugins: {hook_name} raised {outcome.exception!r}\n")


def _loaded_manager():
    manager = _state.manager
    if manager is None:
        raise RuntimeError(
            "chainer plugins cannot be (un)registered while they are being "
            "loaded; do it after ensure_loaded() returns, not from a plugin "
            "module's import"
        )
    return manager


# --------------------------------------------------------------------------
# Explicit registration
# --------------------------------------------------------------------------


def register(plugin, name: str | None = None) -> str:
    """Registers a plugin module or object explicitly.

    This is how tests (with autoloading off) and applications add plugins that
    are not installed as distributions. The registry is rebuilt at once.

    Unlike plugins found through entry points, which are contained (reported
    with a warning and skipped), a plugin registered here was asked for by the
    caller: any problem with it raises, and the registry stays as it was.

    Args:
        plugin: A module or object with :data:`hookimpl`-marked hook functions.
        name (str): The plugin name; defaults to the module's ``__name__``.

    Returns:
        str: The name the plugin is registered under.

    Raises:
        ValueError: The name or plugin is already registered, or the plugin
            registers a name that another plugin already registered.
        TypeError: A hook returned something other than a dict of names.
        pluggy.PluginValidationError: The plugin implements an unknown hook or
            a hook with wrong arguments.
    """
    if name is not None and (not isinstance(name, str) or not name):
        raise TypeError(f"plugin name must be a non-empty str, not {name!r}")
    if plugin is None or isinstance(plugin, (str, bytes, int, float)):
        raise TypeError(
            f"register() takes a plugin module or object, not {plugin!r}; "
            "import the module first"
        )
    ensure_loaded()
    with _state.lock:
        manager = _loaded_manager()
        taken = manager.get_name(plugin)
        if taken is not None:
            raise ValueError(f"this plugin is already registered as {taken!r}")
        if name is not None and manager.get_plugin(name) is not None:
            raise ValueError(
                f"a plugin named {name!r} is already registered "
                f"({_tables.describe_plugin(name, _state.dists)}); unregister it "
                "first or pick another name"
            )
        import pluggy

        dists = dict(_state.dists)
        try:
            registered = manager.register(plugin, name=name)
            dist = _declared_distribution(plugin)
            if dist is not None:
                dists[registered] = dist
            for plugin_name, message in _check_pending(manager, dists):
                if plugin_name == registered:
                    raise pluggy.PluginValidationError(plugin, message)
            _warn_unmarked_hooks(plugin, _tables.describe_plugin(registered, dists))
            tables, _ = _tables.collect(
                manager,
                dists,
                first_party=_first_party(dists),
                strict=registered,
                report=_report,
            )
        except BaseException:
            # pluggy keeps a plugin whose hook failed validation half
            # registered; take it out so the registry stays as it was.
            if manager.is_registered(plugin):
                manager.unregister(plugin)
            raise
        _tables.publish(tables)
        _state.tables = tables
        _state.dists = dists
    return registered


def _declared_distribution(plugin) -> tuple | None:
    # A plugin registered by hand may still be an installed entry point
    # (tests register the example plugin this way with autoloading off).
    from importlib import metadata

    module_name = getattr(plugin, "__name__", None)
    if module_name is None:
        return None
    for ep in metadata.entry_points(group=_GROUP):
        if ep.value == module_name:
            return _dist_of(ep)
    return None


def unregister(name: str) -> None:
    """Unregisters a plugin by name and rebuilds the registry.

    Args:
        name (str): The plugin name, as listed by :func:`list_plugins`.

    Raises:
        KeyError: No plugin of that name is registered.
    """
    ensure_loaded()
    with _state.lock:
        manager = _loaded_manager()
        if not isinstance(name, str) or manager.get_plugin(name) is None:
            registered = ", ".join(n for n, _ in manager.list_name_plugin())
            raise _NotRegisteredError(
                f"no chainer plugin named {name!r} is registered; "
                f"registered plugins: {registered}"
            )
        manager.unregister(name=name)
        dists = {k: v for k, v in _state.dists.items() if k != name}
        tables, _ = _tables.collect(
            manager, dists, first_party=_first_party(dists), report=_report
        )
        _tables.publish(tables)
        _state.tables = tables
        _state.dists = dists


# --------------------------------------------------------------------------
# Lookups
# --------------------------------------------------------------------------


def _canonical_kind(kind) -> str:
    if kind in _tables.SINGULAR:
        return kind
    for plural, singular in _tables.SINGULAR.items():
        if kind == singular:
            return plural
    raise ValueError(
        f"unknown registry kind {kind!r}; expected one of {', '.join(_tables.KINDS)}"
    )


def _lookup(kind: str, key):
    if not _state.loaded:
        ensure_loaded()
    entry = _state.tables[kind].get(key)
    if entry is None:
        table = _state.tables[kind]
        available = ", ".join(map(_tables.format_name, _tables.sorted_names(table)))
        note = (
            ""
            if _state.autoload
            else " (entry-point plugins are not loaded because "
            "CHAINER_DISABLE_PLUGIN_AUTOLOAD is set)"
        )
        raise _NotRegisteredError(
            f"no chainer plugin registers a {_tables.SINGULAR[kind]} named "
            f"{_tables.format_name(key)!r}; available: {available or 'none'}{note}",
            _failure_hint(),
        )
    return _tables.value(entry, kind, key)


def _failure_hint() -> str:
    # A plugin that failed to load may be the one that provides the name.
    return "".join(
        f"; plugin {name!r} ({_tables.describe_dist(failed.distribution)}) "
        f"failed to load: {failed.error}; it may provide this name"
        for name, failed in _state.failed.items()
    )


def get_backend(name: str):
    """Returns the Device class registered for a backend name.

    Args:
        name (str): The backend name without ``'@'``, e.g. ``'numpy'``.

    Returns:
        type: The :class:`chainer.backend.Device` subclass.

    Raises:
        KeyError: No plugin registers that backend; the message lists those
            that are available.
    """
    return _lookup("backends", name)


def get_function(name: str):
    """Returns the function registered under ``name``.

    Args:
        name (str): The function name, e.g. ``'my_op'``.

    Returns:
        callable: The registered function.

    Raises:
        KeyError: No plugin registers that function.
    """
    return _lookup("functions", name)


def get_link(name: str):
    """Returns the link class registered under ``name``.

    Args:
        name (str): The link class name, e.g. ``'MyLink'``.

    Returns:
        type: The registered :class:`chainer.Link` subclass.

    Raises:
        KeyError: No plugin registers that link.
    """
    return _lookup("links", name)


def get_extension(name: str):
    """Returns the trainer extension registered under ``name``.

    Args:
        name (str): The extension name, e.g. ``'MyExtension'``.

    Returns:
        callable: The registered extension class or factory.

    Raises:
        KeyError: No plugin registers that extension.
    """
    return _lookup("extensions", name)


def get_dataset(name: str):
    """Returns the dataset getter or class registered under ``name``.

    Args:
        name (str): The name, e.g. ``'get_my_corpus'``.

    Returns:
        callable: The registered getter function or dataset class.

    Raises:
        KeyError: No plugin registers that name.
    """
    return _lookup("datasets", name)


def get_kernel(node_class, backend_name: str):
    """Returns the kernel override registered for a FunctionNode and a backend.

    Only an exact registration is returned; :meth:`chainer.FunctionNode.apply`
    also uses a base class's kernel for a subclass that does not define its
    own ``forward``.

    Args:
        node_class: The :class:`chainer.FunctionNode` subclass, or a
            ``'module:Class'`` string naming it (nothing is imported).
        backend_name (str): The backend name, e.g. ``'cupy'``.

    Returns:
        callable: The kernel.

    Raises:
        KeyError: No plugin registers a kernel for that pair.
    """
    if isinstance(node_class, str):
        if not _tables.LAZY_REF.match(node_class):
            raise ValueError(
                f"invalid FunctionNode reference {node_class!r}: use 'module:Class'"
            )
        ref = node_class
    elif isinstance(node_class, type):
        ref = _dispatch.class_name(node_class)
    else:
        ref = None
    if ref is None or not isinstance(backend_name, str):
        raise TypeError(
            "get_kernel() takes a FunctionNode class (or 'module:Class') and a "
            f"backend name, not ({node_class!r}, {backend_name!r})"
        )
    return _lookup("kernels", (ref, backend_name))


def names(kind: str) -> list:
    """Returns the sorted names registered for one kind.

    Args:
        kind (str): ``'backends'``, ``'functions'``, ``'links'``,
            ``'extensions'``, ``'datasets'`` or ``'kernels'`` (singular forms
            work too).

    Returns:
        list: The names; for kernels, ``(FunctionNode class, backend name)``
        pairs, with the class as a ``'module:Class'`` string where the plugin
        named it so (it is not imported).
    """
    kind = _canonical_kind(kind)
    ensure_loaded()
    return _tables.shown_names(_state.tables[kind])


def list_plugins() -> list:
    """Lists the registered plugins with their distributions and registrations.

    Returns:
        list of PluginInfo: One record per plugin, in registration order (the
        core plugin first), then one per entry-point plugin that was skipped
        because it failed, with its ``error`` set.
    """
    ensure_loaded()
    with _state.lock:
        manager = _state.manager
        if manager is None:  # called by a plugin module while loading
            return []
        tables = _state.tables
        dists = dict(_state.dists)
        pairs = manager.list_name_plugin()
        failed_plugins = dict(_state.failed)
    records = []
    for plugin_name, plugin in pairs:
        dist = dists.get(plugin_name)
        if dist is None and plugin_name == _CORE_NAME:
            dist = _core_distribution()
        if dist is None:
            dist = (None, None)
        registered = {
            kind: tuple(
                tables[kind][key].shown
                for key in _tables.sorted_names(tables[kind])
                if tables[kind][key].plugin == plugin_name
            )
            for kind in _tables.KINDS
        }
        hooks = tuple(
            sorted(caller.name for caller in manager.get_hookcallers(plugin) or ())
        )
        records.append(PluginInfo(plugin_name, dist[0], dist[1], hooks, registered))
    nothing: dict = {kind: () for kind in _tables.KINDS}
    for plugin_name, failed in failed_plugins.items():
        name, version = failed.distribution
        records.append(
            PluginInfo(plugin_name, name, version, failed.hooks, nothing, failed.error)
        )
    return records


def _core_distribution() -> tuple:
    from importlib import metadata

    try:
        return (_CORE_DISTRIBUTION, metadata.version(_CORE_DISTRIBUTION))
    except metadata.PackageNotFoundError:
        import chainer

        return (_CORE_DISTRIBUTION, chainer.__version__)
