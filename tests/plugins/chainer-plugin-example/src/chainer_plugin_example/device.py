"""The example plugin's backend, ``'@example'``: host memory under another name."""

from __future__ import annotations

from chainer import backend


class ExampleDevice(backend.CpuDevice):
    """A NumPy device named ``'@example'`` or ``'@example:N'``.

    Args:
        index (int or None): Optional device index.
    """

    def __init__(self, index=None):
        if index is not None and (not isinstance(index, int) or index < 0):
            raise ValueError(f"device index must be a non-negative int: {index!r}")
        self.index = index
        self.name = "@example" if index is None else f"@example:{index}"

    @classmethod
    def from_index(cls, index):
        """Returns the device ``'@example:index'``."""
        return cls(index)

    def __repr__(self):
        return f"<ExampleDevice {self.name}>"
