"""Packages whose names are imported at first use (``chainer.utils.lazy_namespace``).

This module is an extension of this project; Chainer 7 has no such module.
Chainer's packages (``chainer``, ``chainer.functions``, ``chainer.links``,
``chainer.training`` and its subpackages, ``chainer.iterators``,
``chainer.datasets``) offer many names whose modules need not all be imported
by ``import chainer``. Each such package gets its module-level ``__getattr__``
and ``__dir__`` (PEP 562) from :func:`attach`, so that every one of them
behaves the same way:

- a listed name is taken from its module at first use and then stored in
  the package, so that later lookups are plain attribute reads;
- a listed submodule (or a module shown under another name, such as
  ``chainer.basic_math``) is imported at first use;
- when that import fails because the distribution providing the module is
  not installed, the answer is an :class:`AttributeError` (``hasattr`` is
  False) whose message names the distribution and the pip command;
- any other name is looked up among those that plugins register through the
  ``chainer.plugins`` entry point for the package's kind (functions, links,
  extensions, datasets), if it has one;
- ``dir()`` shows the package's globals, the listed names and submodules,
  and the plugins' names.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

# Registry kind -> the chainer.plugins function that looks a name up.
_PLUGIN_LOOKUPS = {
    "functions": "get_function",
    "links": "get_link",
    "extensions": "get_extension",
    "datasets": "get_dataset",
}


def attach(
    package: str,
    names: Mapping[str, str] | None = None,
    submodules: Iterable[str] = (),
    *,
    aliases: Mapping[str, str] | None = None,
    plugin_kind: str | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Returns the ``__getattr__`` and ``__dir__`` functions of a lazy package.

    Use it at the end of the package's ``__init__.py``::

        __getattr__, __dir__ = lazy_namespace.attach(
            __name__, {"Trainer": "trainer"}, ("extensions",)
        )

    Args:
        package (str): The package's ``__name__``.
        names (dict): Public name -> the module defining it, relative to the
            package (``'trainer'`` for ``chainer.training.trainer``).
        submodules (tuple of str): Submodules reachable as attributes.
        aliases (dict): Attribute name -> a module shown under that name,
            relative to the package (``{'basic_math':
            'functions.math.basic_math'}`` on ``chainer``).
        plugin_kind (str): ``'functions'``, ``'links'``, ``'extensions'`` or
            ``'datasets'``: other names are looked up among those plugins
            register for that kind. None (the default) looks up nothing.

    Returns:
        tuple: The module-level ``__getattr__(name)`` and ``__dir__()``
        functions for the package.
    """
    names = dict(names or {})
    modules = {name: name for name in submodules}
    modules.update(aliases or {})
    lookup_name = None
    if plugin_kind is not None:
        lookup_name = _PLUGIN_LOOKUPS.get(plugin_kind)
        if lookup_name is None:
            raise ValueError(
                f"unknown plugin kind {plugin_kind!r}; expected one of "
                f"{', '.join(sorted(_PLUGIN_LOOKUPS))}"
            )

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is not None:
            value = getattr(_import(f"{package}.{module}"), name)
        elif name in modules:
            value = _import(f"{package}.{modules[name]}")
        elif lookup_name is not None and not name.startswith("__"):
            from chainer import plugins

            try:
                return getattr(plugins, lookup_name)(name)
            except KeyError as exc:
                # Names a plugin that failed to load and may have provided it.
                hint = getattr(exc, "hint", "")
                raise AttributeError(
                    f"module {package!r} has no attribute {name!r}{hint}"
                ) from None
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # Later lookups find the value in the package and skip __getattr__.
        vars(sys.modules[package])[name] = value
        return value

    def __dir__() -> list[str]:
        shown = set(vars(sys.modules[package])) | set(names) | set(modules)
        if plugin_kind is not None:
            from chainer import plugins

            shown.update(plugins.names(plugin_kind))
        return sorted(shown)

    return __getattr__, __dir__


def _import(module: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        missing = e.name
        if missing is not None and not (
            module == missing or module.startswith(missing + ".")
        ):
            raise  # something the module imports is missing: a real error
        # The message names the distribution to install (chainer._namespace);
        # as an AttributeError, hasattr() on the package is False.
        raise AttributeError(str(e)) from e
