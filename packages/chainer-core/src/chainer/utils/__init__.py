"""Small utilities shared by functions and links (``chainer.utils``)."""

from __future__ import annotations

import collections.abc as collections_abc
import contextlib
import shutil
import tempfile

import numpy

from chainer import configuration as _configuration

# ``experimental`` and ``nondeterministic`` are functions named like their
# modules; importing them here makes the package attribute the function.
from chainer.utils.experimental import experimental
from chainer.utils.meta import enable_final
from chainer.utils.meta import final
from chainer.utils.nondeterministic import nondeterministic

_config_local = _configuration.config._local
_global_config = _configuration.global_config
_MISSING = object()


def size_of_shape(shape):
    """Returns the number of elements of an array of ``shape`` (an int)."""
    size = 1
    for s in shape:
        size *= s
    return int(size)


def force_array(x, dtype=None):
    """Returns ``x`` as an array (0-d NumPy scalars become 0-d arrays).

    Args:
        x: An array or a NumPy scalar.
        dtype: If given, the result has this dtype.
    """
    if numpy.isscalar(x):
        return numpy.asarray(x, dtype=dtype)
    if dtype is not None and x.dtype != dtype:
        return x.astype(dtype, copy=False)
    return x


def force_type(dtype, value):
    """Casts a scalar or array ``value`` to ``dtype``."""
    if numpy.isscalar(value):
        return numpy.dtype(dtype).type(value)
    if value.dtype != dtype:
        return value.astype(dtype, copy=False)
    return value


def _config_entry(name):
    """``chainer.config.<name>`` for hot paths, at a fifth of its cost.

    Reading an entry through ``LocalConfig.__getattr__`` costs about 7k CPU
    instructions (the normal attribute lookup fails first); functions called
    per op (dropout, batch normalization) read the thread-local and global
    dicts directly. (It lives here rather than in ``configuration``: adding
    it there made unrelated ops 1 % slower through CPython's caches, see
    benchmarks/README.md.)
    """
    value = _config_local.__dict__.get(name, _MISSING)
    if value is _MISSING:
        return getattr(_global_config, name)
    return value


# (value, dtype) -> read-only 0-d NumPy array; see _numpy_constant.
_numpy_constants: dict = {}


def _numpy_constant(value, dtype):
    """A cached, read-only 0-d NumPy array of ``value`` and ``dtype``.

    Hot paths multiply or compare arrays with these instead of Python or
    NumPy scalars: NumPy 1.x casts scalars by value, which on small arrays
    costs more than the operation. The cache is emptied past 64 entries.
    """
    key = (value, dtype)
    array = _numpy_constants.get(key)
    if array is None:
        if len(_numpy_constants) > 64:
            _numpy_constants.clear()
        array = numpy.array(value, dtype)
        array.flags.writeable = False
        _numpy_constants[key] = array
    return array


@contextlib.contextmanager
def tempdir(**kwargs):
    """Context manager creating a temporary directory, removed on exit.

    Args:
        **kwargs: Arguments of :func:`tempfile.mkdtemp` (``suffix``,
            ``prefix``, ``dir``), and ``ignore_errors`` (bool) for the removal.

    Yields:
        str: Path of the directory.
    """
    ignore_errors = kwargs.pop("ignore_errors", False)
    temp_dir = tempfile.mkdtemp(**kwargs)
    try:
        yield temp_dir
    finally:
        shutil.rmtree(temp_dir, ignore_errors=ignore_errors)


def _raise_from(exc_type, message, orig_exc):
    # Raises ``exc_type(message)`` chained to ``orig_exc``, whose type and
    # text are appended to the message.
    message = f"{message}\n\n(caused by)\n{type(orig_exc).__name__}: {orig_exc}\n"
    raise exc_type(message) from orig_exc


def _repr_with_named_data(inst, **kwargs):
    items = " ".join(f"{k}={v}" for k, v in kwargs.items())
    return f"<{inst.__module__}.{type(inst).__name__} {items}>"


def _check_arrays_forward_compatible(arrays, label=None):
    import chainer

    if not chainer.is_arrays_compatible(arrays):
        where = f" ({label})" if label is not None else ""
        actual = ", ".join(str(type(x)) for x in arrays)
        raise TypeError(
            "incompatible array types are mixed in the forward input"
            f"{where}.\nActual: {actual}"
        )


# Submodules and names imported on first use keep ``import chainer`` light.
_LAZY = {
    "WalkerAlias": "walker_alias",
    "sum_to": "array",
    "_format_array_props": "error",
    "CooMatrix": "sparse",
    "to_coo": "sparse",
    "get_order": "sparse",
    "get_conv_outsize": "conv",
    "get_deconv_outsize": "conv",
}


def __getattr__(name):
    import importlib

    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"chainer.utils.{module}"), name)
        globals()[name] = value
        return value
    if not name.startswith("__"):
        # Submodules (``chainer.utils.argument``...) are attributes too, as
        # in Chainer, whose package imports them eagerly.
        import importlib.util

        if importlib.util.find_spec(f"chainer.utils.{name}") is not None:
            return importlib.import_module(f"chainer.utils.{name}")
    raise AttributeError(f"module 'chainer.utils' has no attribute {name!r}")
