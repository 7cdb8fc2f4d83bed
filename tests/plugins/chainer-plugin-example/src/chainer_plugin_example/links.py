"""The example plugin's link, ``ExampleScale``."""

from __future__ import annotations

import chainer
from chainer import initializers


class ExampleScale(chainer.Link):
    """Multiplies its input by a learned per-feature scale.

    Args:
        size (int): Length of the last axis of the input.
        initial (float): Initial value of every scale.

    Attributes:
        W (~chainer.Parameter): The scale, of shape ``(size,)``.
    """

    def __init__(self, size, initial=1.0):
        super().__init__()
        if not isinstance(size, int) or size <= 0:
            raise ValueError(f"size must be a positive int, not {size!r}")
        with self.init_scope():
            self.W = chainer.Parameter(initializers.Constant(initial), (size,))

    def forward(self, x):
        """Returns ``x * W``, broadcasting ``W`` over the leading axes.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Array of shape
                ``(..., size)``.

        Returns:
            ~chainer.Variable: Same shape as ``x``.
        """
        return x * self.W
