"""Lazy attribute tables for the ``chainer.training`` packages.

Each package ``__init__`` maps its public names to the modules defining them;
a name's module is imported at its first use, so ``import chainer.training``
stays cheap and a package does not import every extension it offers.
"""

from __future__ import annotations

import importlib


def attach(package: str, names: dict[str, str], submodules: tuple[str, ...] = ()):
    """Returns ``(__getattr__, __dir__, __all__)`` for a package.

    Args:
        package (str): The package's ``__name__``.
        names (dict): Public name -> module path relative to the package
            (``'trainer'`` for ``chainer.training.trainer``).
        submodules (tuple of str): Submodules reachable as attributes.

    Returns:
        tuple: The module-level ``__getattr__`` and ``__dir__`` functions and
        the sorted ``__all__`` list.
    """

    def __getattr__(name):
        module = names.get(name)
        if module is not None:
            value = getattr(importlib.import_module(f"{package}.{module}"), name)
        elif name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        globals_ = importlib.import_module(package).__dict__
        globals_[name] = value  # later lookups skip __getattr__
        return value

    def __dir__():
        globals_ = importlib.import_module(package).__dict__
        return sorted(set(globals_) | set(names) | set(submodules))

    return __getattr__, __dir__, sorted(names)
