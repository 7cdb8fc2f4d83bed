"""The example plugin's backend, ``'@example'``: arrays of a type of their own.

Its arrays are :class:`~chainer_plugin_example.array.ExampleArray` objects, not
NumPy arrays, so a model moved here with ``to_device('@example')`` proves that
the framework dispatches on the backend's ``xp`` and never falls back to NumPy
silently. The device follows the contract in ``docs/backends.md``.
"""

from __future__ import annotations

import contextlib
import numbers
import threading

import numpy

from chainer import backend
from chainer_plugin_example import array as _array

_local = threading.local()


class ExampleDevice(backend.Device):
    """The ``'@example'`` device, or ``'@example:N'`` with an index.

    Args:
        index (int or None): Device index; ``None`` names ``'@example'``.

    Raises:
        ValueError: ``index`` is not a non-negative int.
    """

    xp = _array.xp
    supported_array_types = (_array.ExampleArray,)

    def __init__(self, index=None):
        if index is not None and (
            isinstance(index, bool) or not isinstance(index, int) or index < 0
        ):
            raise ValueError(f"device index must be a non-negative int: {index!r}")
        self.index = index
        self.name = "@example" if index is None else f"@example:{index}"

    @classmethod
    def from_index(cls, index: int) -> ExampleDevice:
        """Returns the device ``'@example:index'``.

        Args:
            index (int): Device index.

        Returns:
            ExampleDevice: The device.
        """
        return cls(index)

    @staticmethod
    def from_array(array) -> ExampleDevice | None:
        """Returns the device holding ``array``, or None if it is not ours.

        Args:
            array: An array of any backend.

        Returns:
            ExampleDevice or None: The device.
        """
        if isinstance(array, _array.ExampleArray):
            return ExampleDevice(array.device_index)
        return None

    def __repr__(self) -> str:
        return f"<ExampleDevice {self.name}>"

    def is_array_supported(self, array) -> bool:
        """Returns whether ``array`` is an ExampleArray on this device.

        Args:
            array: An array.

        Returns:
            bool: True when it can be used here without a transfer.
        """
        return (
            isinstance(array, _array.ExampleArray) and array.device_index == self.index
        )

    def send_array(self, array):
        """Copies one array (NumPy, another backend's, a scalar) to this device.

        Args:
            array: An array of any registered backend, a NumPy scalar or a
                Python number.

        Returns:
            ExampleArray: ``array`` itself if it is already here, else a copy.

        Raises:
            TypeError: ``array`` is not an array or a scalar.
        """
        if isinstance(array, _array.ExampleArray):
            if array.device_index == self.index:
                return array
            return _array.ExampleArray(array.get(), self.index)
        if isinstance(array, (numpy.generic, numbers.Number)):
            return _array.ExampleArray(numpy.asarray(array), self.index)
        if isinstance(array, numpy.ndarray):
            return _array.ExampleArray(array.copy(), self.index)
        if backend.is_array_supported(array):
            # Another backend's array (CuPy...): through host memory.
            host = backend.CpuDevice().send(array)
            return _array.ExampleArray(numpy.array(host), self.index)
        raise TypeError(
            f"cannot send {type(array).__name__} to {self.name}: an array of a "
            "registered backend or a scalar is expected"
        )

    def use(self) -> None:
        """Makes this device current: ``xp`` allocates new arrays on it."""
        _array.set_current_device_index(self.index)

    @contextlib.contextmanager
    def _current(self):
        previous = _array.current_device_index()
        self.use()
        try:
            yield self
        finally:
            _array.set_current_device_index(previous)

    def create_context(self):
        """Returns a context manager in which this device is current.

        Returns:
            A context manager restoring the previous device on exit.
        """
        return self._current()

    def __enter__(self) -> ExampleDevice:
        context = self.create_context()
        context.__enter__()
        _stack().append(context)
        return super().__enter__()

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        _stack().pop().__exit__(*exc)


def _stack() -> list:
    stack = getattr(_local, "contexts", None)
    if stack is None:
        stack = _local.contexts = []
    return stack
