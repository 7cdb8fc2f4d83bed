"""The example backend's array type, :class:`ExampleArray`, and its module ``xp``.

An :class:`ExampleArray` keeps its elements in host memory (a private
``numpy.ndarray``), but it is a type of its own, as a CuPy array is: it is no
``numpy.ndarray`` subclass, and it never turns back into one on its own.

- Operators, ufuncs (``numpy.exp(a)``, NEP 13) and NumPy functions called on it
  (``numpy.concatenate([a, b])``, NEP 18) return ``ExampleArray`` objects;
  reductions return 0-d arrays, not NumPy scalars, as CuPy's do.
- Mixing it with a non-0-d ``numpy.ndarray`` in one operation is a
  ``TypeError``, and so is ``numpy.asarray(a)``: moving data between host and
  device is explicit (``a.get()``, ``chainer.get_device('@numpy').send(a)``),
  as with CuPy. Bugs that only show on a GPU (a NumPy constant mixed into a
  device computation) show here on a CPU.
- Arrays belong to a device index (``None`` for ``'@example'``, ``N`` for
  ``'@example:N'``); mixing devices in one operation is a ``ValueError``.

:data:`xp` is the array module: ``xp.zeros``, ``xp.matmul``, ``xp.random.normal``
and the rest of NumPy's namespace, each returning ``ExampleArray`` objects on
the current device.
"""

from __future__ import annotations

import functools
import numbers
import threading
import types

import numpy

_local = threading.local()

# Functions that take host data (NumPy arrays, lists) as input, as CuPy's do:
# they are the ways onto the device.
_HOST_INPUT = frozenset(
    {"array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray"}
)
_SCALARS = (numbers.Number, numpy.generic)


def current_device_index() -> int | None:
    """Returns the index of this thread's current example device.

    Returns:
        int or None: ``None`` for ``'@example'``, ``N`` for ``'@example:N'``.
    """
    return getattr(_local, "device_index", None)


def set_current_device_index(index: int | None) -> None:
    """Makes ``'@example'`` (``None``) or ``'@example:index'`` current.

    Args:
        index (int or None): The device index.
    """
    _local.device_index = index


def _device_label(index) -> str:
    return "@example" if index is None else f"@example:{index}"


class _Call:
    # The state of one operation: the devices of its ExampleArray operands and
    # their host arrays (so that a result that *is* an operand's storage comes
    # back as that operand, e.g. ``out=`` or ``astype(copy=False)``).
    __slots__ = ("devices", "host_ok", "operands", "what")

    def __init__(self, what, host_ok=False):
        self.what = what
        self.host_ok = host_ok
        self.devices = set()
        self.operands = {}

    def unwrap(self, value):
        t = type(value)
        if t is ExampleArray:
            self.devices.add(value._device_index)
            self.operands[id(value._array)] = value
            return value._array
        if isinstance(value, numpy.ndarray):
            if value.ndim and not self.host_ok:
                raise TypeError(
                    f"{self.what}: a numpy.ndarray cannot be mixed with "
                    "ExampleArray operands; send it to the device first "
                    "(chainer.get_device('@example').send(array))"
                )
            return value
        if isinstance(value, list):
            return [self.unwrap(v) for v in value]
        if isinstance(value, tuple) and not hasattr(value, "_fields"):
            # Tuple subclasses (the inputs of FunctionNode.forward...) become
            # plain tuples, which NumPy reads as sequences of arrays.
            return tuple([self.unwrap(v) for v in value])
        return value

    def unwrap_kwargs(self, kwargs):
        return {k: self.unwrap(v) for k, v in kwargs.items()}

    def device(self):
        if not self.devices:
            return current_device_index()
        if len(self.devices) > 1:
            names = " and ".join(sorted(map(_device_label, self.devices)))
            raise ValueError(f"{self.what}: arrays are on different devices: {names}")
        (index,) = self.devices
        return index

    def wrap(self, value, index):
        if isinstance(value, numpy.ndarray):
            known = self.operands.get(id(value))
            if known is not None and known._array is value:
                return known
            return ExampleArray(value, index)
        if isinstance(value, numpy.generic):
            return ExampleArray(numpy.asarray(value), index)
        if isinstance(value, (tuple, list)):
            items = [self.wrap(v, index) for v in value]
            if hasattr(value, "_fields"):  # named tuples, e.g. linalg results
                return type(value)(*items)
            return type(value)(items)
        return value


def _operand_ok(other) -> bool:
    return isinstance(other, (ExampleArray, numpy.ndarray, *_SCALARS))


def _binary(ufunc, reflected=False):
    def op(self, other):
        if not _operand_ok(other):
            return NotImplemented  # e.g. a chainer.Variable: its reflected op
        return ufunc(other, self) if reflected else ufunc(self, other)

    op.__name__ = f"__{'r' if reflected else ''}{ufunc.__name__}__"
    return op


def _inplace(ufunc):
    def op(self, other):
        if not _operand_ok(other):
            return NotImplemented
        return ufunc(self, other, out=(self,))

    return op


class ExampleArray:
    """An n-dimensional array of the ``'@example'`` backend.

    Create one with :data:`xp` (``xp.zeros((2, 3), 'f')``) or by sending an
    array to the device (``chainer.get_device('@example').send(x)``).

    Args:
        array (numpy.ndarray): The storage; it is used as it is, not copied.
        device_index (int or None): The device the array is on.
    """

    __slots__ = ("__weakref__", "_array", "_device_index")
    __hash__ = None  # type: ignore[assignment]  # mutable, as ndarray

    def __init__(self, array, device_index=None):
        if not isinstance(array, numpy.ndarray):
            raise TypeError(
                f"ExampleArray stores a numpy.ndarray, not {type(array).__name__}"
            )
        self._array = array
        self._device_index = device_index

    # -- the attributes Chainer's catalogue reads on every call --------------
    @property
    def shape(self) -> tuple:
        """tuple of int: Lengths of the axes."""
        return self._array.shape

    @shape.setter
    def shape(self, value) -> None:
        self._array.shape = value

    @property
    def dtype(self) -> numpy.dtype:
        """numpy.dtype: Element type."""
        return self._array.dtype

    @property
    def ndim(self) -> int:
        """int: Number of axes."""
        return self._array.ndim

    @property
    def size(self) -> int:
        """int: Number of elements."""
        return self._array.size

    @property
    def T(self) -> ExampleArray:
        """ExampleArray: The transposed array (a view)."""
        return ExampleArray(self._array.T, self._device_index)

    @property
    def device_index(self) -> int | None:
        """int or None: The index of the device holding this array."""
        return self._device_index

    def astype(self, dtype, copy=True, **kwargs) -> ExampleArray:
        """Returns the array cast to ``dtype`` (``self`` when no copy is needed).

        Args:
            dtype: Target dtype.
            copy (bool): Copy even when the dtype already matches.

        Returns:
            ExampleArray: The cast array.
        """
        cast = self._array.astype(dtype, copy=copy, **kwargs)
        if cast is self._array:
            return self
        return ExampleArray(cast, self._device_index)

    def reshape(self, *shape, **kwargs) -> ExampleArray:
        """Returns an array of the same data with a new shape.

        Args:
            *shape: The new shape, as ints or one tuple.

        Returns:
            ExampleArray: A view where possible, as ``numpy.ndarray.reshape``.
        """
        return ExampleArray(self._array.reshape(*shape, **kwargs), self._device_index)

    def get(self) -> numpy.ndarray:
        """Copies the array to host memory, as ``cupy.ndarray.get`` does.

        Returns:
            numpy.ndarray: A new host array.
        """
        return self._array.copy()

    # -- everything else of ndarray's methods, results wrapped ---------------
    def __getattr__(self, name):
        # Dunder protocols (``__array_interface__``...) are not forwarded:
        # NumPy would use them to read the storage as an ndarray.
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            value = getattr(self._array, name)
        except AttributeError:
            raise AttributeError(
                f"'ExampleArray' object has no attribute {name!r}"
            ) from None
        if not callable(value):
            return _Call(name).wrap(value, self._device_index)

        def method(*args, **kwargs):
            call = _Call(f"ExampleArray.{name}")
            call.unwrap(self)
            result = value(*call.unwrap(args), **call.unwrap_kwargs(kwargs))
            return call.wrap(result, call.device())

        method.__name__ = name
        return method

    # -- NEP 13 / NEP 18 -----------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        for x in inputs:
            if not _operand_ok(x) and hasattr(x, "__array_ufunc__"):
                return NotImplemented
        what = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
        call = _Call(what)
        if method == "at":
            # ufunc.at(a, indices, b): the indices may be host arrays, as
            # in indexing.
            a, indices, *rest = inputs
            args = (
                call.unwrap(a),
                _Call(what, host_ok=True).unwrap(indices),
                *call.unwrap(rest),
            )
        else:
            args = call.unwrap(inputs)
        out = kwargs.get("out")
        if out is not None:
            for o in out:
                if o is not None and type(o) is not ExampleArray:
                    raise TypeError(
                        f"{call.what}: out= must be an ExampleArray, "
                        f"not {type(o).__name__}"
                    )
            kwargs["out"] = call.unwrap(tuple(out))
        index = call.device()
        result = getattr(ufunc, method)(*args, **kwargs)
        if method == "at":
            return None
        if out is not None:
            return out[0] if len(out) == 1 else tuple(out)
        return call.wrap(result, index)

    def __array_function__(self, func, types_, args, kwargs):
        for t in types_:
            if not issubclass(t, (ExampleArray, numpy.ndarray)):
                return NotImplemented
        call = _Call(f"numpy.{func.__name__}")
        result = func(*call.unwrap(args), **call.unwrap_kwargs(kwargs))
        return call.wrap(result, call.device())

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "implicit conversion of an ExampleArray to a NumPy array is not "
            "allowed: use .get() or chainer.get_device('@numpy').send(array)"
        )

    # -- indexing ------------------------------------------------------------
    def __getitem__(self, key):
        call = _Call("ExampleArray.__getitem__", host_ok=True)
        result = self._array[call.unwrap(key)]
        call.unwrap(self)
        return call.wrap(result, call.device())

    def __setitem__(self, key, value):
        call = _Call("ExampleArray.__setitem__")
        call.unwrap(self)
        value = call.unwrap(value)
        key = _Call("index", host_ok=True).unwrap(key)
        call.device()
        self._array[key] = value

    def __len__(self) -> int:
        return len(self._array)

    def __iter__(self):
        for i in range(len(self._array)):
            yield self[i]

    # -- conversions to Python scalars (explicit, as for CuPy) ---------------
    def __bool__(self) -> bool:
        return bool(self._array)

    def __float__(self) -> float:
        return float(self._array)

    def __int__(self) -> int:
        return int(self._array)

    def __index__(self) -> int:
        return self._array.__index__()

    def __complex__(self) -> complex:
        return complex(self._array)

    def __repr__(self) -> str:
        body = repr(self._array)
        if body.startswith("array("):
            body = body[len("array(") : -1]
        return f"ExampleArray({body}, device={_device_label(self._device_index)!r})"

    def __str__(self) -> str:
        return str(self._array)

    def __format__(self, spec) -> str:
        return format(self._array, spec) if self.ndim == 0 else str(self)

    # -- copying and pickling ------------------------------------------------
    def __copy__(self) -> ExampleArray:
        return ExampleArray(self._array.copy(), self._device_index)

    def __deepcopy__(self, memo) -> ExampleArray:
        return ExampleArray(self._array.copy(), self._device_index)

    def __reduce__(self):
        return (ExampleArray, (self._array, self._device_index))

    # -- operators -----------------------------------------------------------
    __add__ = _binary(numpy.add)
    __radd__ = _binary(numpy.add, True)
    __sub__ = _binary(numpy.subtract)
    __rsub__ = _binary(numpy.subtract, True)
    __mul__ = _binary(numpy.multiply)
    __rmul__ = _binary(numpy.multiply, True)
    __truediv__ = _binary(numpy.true_divide)
    __rtruediv__ = _binary(numpy.true_divide, True)
    __floordiv__ = _binary(numpy.floor_divide)
    __rfloordiv__ = _binary(numpy.floor_divide, True)
    __mod__ = _binary(numpy.remainder)
    __rmod__ = _binary(numpy.remainder, True)
    __pow__ = _binary(numpy.power)
    __rpow__ = _binary(numpy.power, True)
    __matmul__ = _binary(numpy.matmul)
    __rmatmul__ = _binary(numpy.matmul, True)
    __and__ = _binary(numpy.bitwise_and)
    __rand__ = _binary(numpy.bitwise_and, True)
    __or__ = _binary(numpy.bitwise_or)
    __ror__ = _binary(numpy.bitwise_or, True)
    __xor__ = _binary(numpy.bitwise_xor)
    __rxor__ = _binary(numpy.bitwise_xor, True)
    __lshift__ = _binary(numpy.left_shift)
    __rshift__ = _binary(numpy.right_shift)
    __lt__ = _binary(numpy.less)
    __le__ = _binary(numpy.less_equal)
    __gt__ = _binary(numpy.greater)
    __ge__ = _binary(numpy.greater_equal)
    __eq__ = _binary(numpy.equal)  # type: ignore[assignment]
    __ne__ = _binary(numpy.not_equal)  # type: ignore[assignment]
    __iadd__ = _inplace(numpy.add)
    __isub__ = _inplace(numpy.subtract)
    __imul__ = _inplace(numpy.multiply)
    __itruediv__ = _inplace(numpy.true_divide)
    __ifloordiv__ = _inplace(numpy.floor_divide)
    __imod__ = _inplace(numpy.remainder)
    __ipow__ = _inplace(numpy.power)
    __iand__ = _inplace(numpy.bitwise_and)
    __ior__ = _inplace(numpy.bitwise_or)
    __ixor__ = _inplace(numpy.bitwise_xor)

    def __neg__(self) -> ExampleArray:
        return numpy.negative(self)

    def __pos__(self) -> ExampleArray:
        return numpy.positive(self)

    def __abs__(self) -> ExampleArray:
        return numpy.absolute(self)

    def __invert__(self) -> ExampleArray:
        return numpy.invert(self)

    def __divmod__(self, other):
        if not _operand_ok(other):
            return NotImplemented
        return numpy.divmod(self, other)


# -- the array module ---------------------------------------------------------


def _function(func, name, random=False):
    host_ok = name in _HOST_INPUT

    @functools.wraps(func)
    def call_function(*args, **kwargs):
        call = _Call(f"xp.{name}", host_ok=host_ok)
        # CuPy's generators take a dtype; NumPy's legacy ones do not.
        dtype = kwargs.pop("dtype", None) if random else None
        result = func(*call.unwrap(args), **call.unwrap_kwargs(kwargs))
        if dtype is not None:
            result = numpy.asarray(result).astype(dtype, copy=False)
        return call.wrap(result, call.device())

    return call_function


class _Generator:
    # A NumPy random generator whose draws land on the current device.
    def __init__(self, generator):
        self._generator = generator

    def __getattr__(self, name):
        value = getattr(self._generator, name)
        if callable(value):
            return _function(value, name, random=True)
        return value


def _generator_class(cls):
    @functools.wraps(cls)
    def make(*args, **kwargs):
        return _Generator(cls(*args, **kwargs))

    return make


class _Namespace(types.ModuleType):
    # NumPy's namespace (or a submodule of it) seen through ExampleArray:
    # functions wrap their results, ``ndarray`` is ExampleArray, and types,
    # dtypes, constants and ufuncs (which dispatch through
    # ``ExampleArray.__array_ufunc__``) pass through as they are.
    def __init__(self, name, source):
        super().__init__(name, f"NumPy's {source.__name__} for ExampleArray.")
        self._source = source
        self._random = source is numpy.random

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self._source, name)
        if name == "ndarray":
            adapted = ExampleArray
        elif isinstance(value, types.ModuleType):
            adapted = _Namespace(f"{self.__name__}.{name}", value)
        elif isinstance(value, numpy.ufunc):
            adapted = value
        elif isinstance(value, type):
            adapted = _generator_class(value) if self._random else value
        elif callable(value):
            adapted = _function(value, name, random=self._random)
        else:
            adapted = value
        setattr(self, name, adapted)  # later lookups skip __getattr__
        return adapted

    def __dir__(self):
        return sorted(set(dir(self._source)) | set(super().__dir__()))


xp = _Namespace("chainer_plugin_example.xp", numpy)
"""The example backend's array module: NumPy's API over :class:`ExampleArray`."""
