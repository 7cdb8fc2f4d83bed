"""Checks that a registered backend's Device class honours the contract.

The contract is written out in ``docs/backends.md``. The registry calls
:func:`check_device_class` when it resolves a backend class, so that a plugin
with a broken backend fails there, with an error naming the backend, the
plugin and what is wrong, and not deep inside the first op that sees one of
its arrays. Only what the class declares is checked: nothing is instantiated
and no array library is imported (a lazily declared ``xp`` or a
``"module:QualName"`` array type is accepted as it is).
"""

from __future__ import annotations

import inspect
import re
import types
from typing import Any

from chainer import backend

# The part of NumPy's namespace every model of the catalogue touches (array
# creation, elementwise math, reductions, BLAS, copying): an ``xp`` without
# one of these cannot run even a Linear layer. docs/backends.md lists the
# rest.
REQUIRED_XP_NAMES = (
    "asarray",
    "empty",
    "empty_like",
    "zeros",
    "zeros_like",
    "ones",
    "full",
    "arange",
    "concatenate",
    "where",
    "maximum",
    "exp",
    "log",
    "sqrt",
    "tanh",
    "matmul",
    "dot",
    "sum",
    "multiply",
    "add",
    "copyto",
    "ndarray",
    "float32",
    "random",
)

_QUALNAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_METHODS = ("send_array", "send", "use", "create_context", "is_array_supported")


def _own_attribute(cls: type, attr: str) -> tuple[bool, Any]:
    # (found, value) of ``attr`` set by ``cls`` or a base below Device,
    # read without running descriptors.
    for klass in cls.__mro__:
        if klass is backend.Device or klass is object:
            return False, None
        if attr in vars(klass):
            return True, vars(klass)[attr]
    return False, None


def _is_lazy(value: Any) -> bool:
    # A property or other descriptor: its value is known only on access.
    return not isinstance(value, types.ModuleType) and hasattr(type(value), "__get__")


def _check_xp(cls: type, array_types: Any) -> list[str]:
    found, xp = _own_attribute(cls, "xp")
    if not found:
        return ["it does not set `xp`, the array module of its arrays"]
    if _is_lazy(xp):
        return []
    if xp is None:
        if array_types:
            return [
                "`xp` is None although it declares array types (None is for "
                "a backend whose array library is not installed)"
            ]
        return []
    missing = [n for n in REQUIRED_XP_NAMES if not hasattr(xp, n)]
    if missing:
        return [
            f"its `xp` ({getattr(xp, '__name__', type(xp).__name__)}) lacks "
            f"{', '.join(missing)} of NumPy's API"
        ]
    return []


def _check_array_types(cls: type) -> tuple[list[str], Any]:
    found, array_types = _own_attribute(cls, "supported_array_types")
    if not found:
        return [
            "it does not set `supported_array_types`, the tuple of its array classes"
        ], None
    if not isinstance(array_types, tuple):
        return [
            "`supported_array_types` must be a tuple of array classes or "
            f"'module:QualName' strings, not {type(array_types).__name__}"
        ], None
    problems = []
    for entry in array_types:
        if isinstance(entry, str):
            if not _QUALNAME.match(entry):
                problems.append(
                    f"array type {entry!r} in `supported_array_types` is not "
                    "a 'module:QualName' string"
                )
        elif not isinstance(entry, type):
            problems.append(
                f"`supported_array_types` holds {entry!r}, which is neither a "
                "class nor a 'module:QualName' string"
            )
    found_xp, xp = _own_attribute(cls, "xp")
    if not array_types and found_xp and xp is not None and not _is_lazy(xp):
        problems.append(
            "`supported_array_types` is empty, so no array is ever "
            "recognised as this backend's"
        )
    return problems, array_types


def _check_methods(cls: type) -> list[str]:
    problems = []
    base_from_array = inspect.getattr_static(backend.Device, "from_array")
    from_array = inspect.getattr_static(cls, "from_array")
    if from_array is base_from_array:
        problems.append(
            "it does not override `from_array(array)`, so the device of one "
            "of its arrays cannot be found"
        )
    elif not isinstance(from_array, (staticmethod, classmethod)):
        problems.append(
            "`from_array` must be a staticmethod or classmethod (it is called "
            "on the class)"
        )
    from_index = inspect.getattr_static(cls, "from_index", None)
    if from_index is not None and not isinstance(
        from_index, (staticmethod, classmethod)
    ):
        problems.append(
            "`from_index` must be a classmethod or staticmethod (it is called "
            "on the class for '@name:N')"
        )
    if inspect.getattr_static(cls, "send_array") is vars(backend.Device)["send_array"]:
        problems.append(
            "it does not override `send_array(array)`, so no array can be moved to it"
        )
    for method in _METHODS:
        if not callable(inspect.getattr_static(cls, method, None)):
            problems.append(f"`{method}` is not a method")
    if cls.__hash__ is None:
        problems.append(
            "it defines `__eq__` without `__hash__` (devices are dict keys)"
        )
    return problems


def check_device_class(cls: Any, name: str, origin: str) -> None:
    """Raises TypeError unless ``cls`` is a usable Device class for ``name``.

    Args:
        cls: What the plugin registered for the backend.
        name (str): The backend name, without ``'@'``.
        origin (str): Who registered it, e.g. ``"plugin 'x' (distribution x
            1.0)"``; it goes into the message.

    Raises:
        TypeError: ``cls`` breaks the contract of ``docs/backends.md``; the
            message names the backend, ``origin`` and every problem found.
    """
    where = f"backend '@{name}' registered by {origin}"
    if not isinstance(cls, type) or not issubclass(cls, backend.Device):
        what = cls.__qualname__ if isinstance(cls, type) else repr(cls)
        raise TypeError(
            f"{where} is {what}, not a subclass of chainer.backend.Device "
            "(see docs/backends.md)"
        )
    problems = []
    if not isinstance(name, str) or not name or "@" in name or ":" in name:
        problems.append(f"the name {name!r} must be a non-empty str without '@' or ':'")
    type_problems, array_types = _check_array_types(cls)
    problems += type_problems
    problems += _check_xp(cls, array_types)
    problems += _check_methods(cls)
    found, device_name = _own_attribute(cls, "name")
    if found and isinstance(device_name, str) and device_name:
        if device_name.partition(":")[0] != f"@{name}":
            problems.append(
                f"its class attribute name {device_name!r} does not match '@{name}'"
            )
    elif found and not isinstance(device_name, (str, property)):
        problems.append(f"its `name` must be a str, not {type(device_name).__name__}")
    if problems:
        listed = "; ".join(problems)
        raise TypeError(
            f"{where} ({cls.__module__}.{cls.__qualname__}) does not meet the "
            f"Device contract (see docs/backends.md): {listed}"
        )
