"""The ChainerX backend (``chainer.backends._chainerx``): not available here.

This Chainer has no ChainerX (``chainerx.is_available()`` is False), so this
module behaves as Chainer 7's does without a ChainerX build: no array is a
ChainerX array, :class:`ChainerxDevice` cannot be constructed, :func:`to_chx`
raises ``RuntimeError`` and :func:`from_chx` returns non-ChainerX arrays
unchanged.
"""

from __future__ import annotations

import chainerx

from chainer import _backend
from chainer import backend


def check_chainerx_available():
    """Raises ``RuntimeError``: ChainerX is not available in this Chainer."""
    if not chainerx.is_available():
        raise RuntimeError(
            "ChainerX is not available. This Chainer does not include "
            "ChainerX (chainerx.is_available() is False); use the NumPy "
            "('@numpy') or CuPy ('@cupy:N') devices instead."
        )


class ChainerxDevice(backend.Device):
    """Device of the ChainerX backend; needs ChainerX.

    Args:
        device (chainerx.Device): The ChainerX device.

    Raises:
        RuntimeError: Always here: ChainerX is not available.
    """

    xp = chainerx
    supported_array_types = (chainerx.ndarray,)

    def __init__(self, device):
        check_chainerx_available()
        self.device = device

    @staticmethod
    def from_array(array):
        return None

    @staticmethod
    def from_fallback_device(device):
        """Returns the ChainerX device sharing ``device``'s memory (needs ChainerX)."""
        check_chainerx_available()

    @property
    def fallback_device(self):
        """The NumPy or CuPy device of the same physical device."""
        check_chainerx_available()

    def __eq__(self, other):
        return isinstance(other, ChainerxDevice) and other.device == self.device

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"

    def send_array(self, array):
        check_chainerx_available()

    def is_array_supported(self, array):
        return False


def _array_to_chainerx(array, device=None):
    if array is None:
        return None
    check_chainerx_available()


def _array_from_chainerx(array):
    if array is None:
        return None
    if isinstance(array, chainerx.ndarray):  # pragma: no cover - cannot happen
        check_chainerx_available()
    if not backend.is_array_supported(array):
        raise TypeError(
            "Tried to convert to a non-ChainerX array from an invalid type: "
            f"{type(array)}"
        )
    return array


def to_chx(array):
    """Converts an array or arrays to ChainerX (needs ChainerX).

    Args:
        array: An array, or a list or tuple of arrays.

    Raises:
        RuntimeError: ChainerX is not available.
    """
    return _backend._convert_arrays(array, _array_to_chainerx)


def from_chx(array):
    """Converts ChainerX arrays to NumPy or CuPy arrays; others pass through.

    Args:
        array: An array, or a list or tuple of arrays (None kept).

    Returns:
        The same arrays: no ChainerX array can exist here.
    """
    return _backend._convert_arrays(array, _array_from_chainerx)
