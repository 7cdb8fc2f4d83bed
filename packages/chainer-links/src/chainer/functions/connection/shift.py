from chainer import backend
from chainer import function_node
from chainer.utils import conv
from chainer.utils import type_check


def _group_shifts(kh, kw, dy, dx):
    # Spatial shift (sy, sx) of each channel group, in channel order: group g
    # reads kernel position g of the kh x kw window, except that the centre
    # (zero shift) moves to the last group, which also takes the channels
    # left over by the integer division.
    n = kh * kw
    centre = (n - 1) // 2
    positions = list(range(n))
    positions[centre], positions[-1] = positions[-1], positions[centre]
    return [((p // kw - kh // 2) * dy, (p % kw - kw // 2) * dx) for p in positions]


def _span(size, s):
    # Output and input ranges along one axis for y[o] = x[o - s].
    if s >= 0:
        return slice(min(s, size), size), slice(0, max(size - s, 0))
    return slice(0, max(size + s, 0)), slice(min(-s, size), size)


class Shift(function_node.FunctionNode):
    """Shifts channel groups of an image by the positions of a window."""

    def __init__(self, ksize=3, dilate=1):
        self.kh, self.kw = conv.as_tuple(ksize, 2, "ksize")
        self.dy, self.dx = conv.as_tuple(dilate, 2, "dilate")
        if self.kh % 2 != 1:
            raise ValueError(f"kh must be odd, got {self.kh}")
        if self.kw % 2 != 1:
            raise ValueError(f"kw must be odd, got {self.kw}")

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
            x_type.shape[1] >= self.kh * self.kw,
        )

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        _, c, h, w = x.shape
        shifts = _group_shifts(self.kh, self.kw, self.dy, self.dx)
        size = c // len(shifts)
        y = xp.zeros_like(x)
        for g, (sy, sx) in enumerate(shifts):
            ch = slice(g * size, (g + 1) * size if g < len(shifts) - 1 else c)
            out_y, in_y = _span(h, sy)
            out_x, in_x = _span(w, sx)
            y[:, ch, out_y, out_x] = x[:, ch, in_y, in_x]
        return (y,)

    def backward(self, indexes, grad_outputs):
        # The adjoint shifts every group back: the same window, negated.
        return (shift(grad_outputs[0], (self.kh, self.kw), (-self.dy, -self.dx)),)


def shift(x, ksize=3, dilate=1):
    """Shift function.

    The channels of ``x`` are split into ``kh * kw`` groups, and each group
    is shifted spatially by the offset of one position of a ``kh x kw``
    window (scaled by ``dilate``), filling the vacated pixels with zero. The
    group with zero shift comes last and takes the ``c % (kh * kw)`` channels
    left over. See Wu et al., *Shift: A Zero FLOP, Zero Parameter
    Alternative to Spatial Convolutions* (2017).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)`` with ``c >= kh * kw``.
        ksize (int or pair of ints): Window size ``(kh, kw)``; both odd.
            ``ksize=k`` and ``ksize=(k, k)`` are equivalent.
        dilate (int or pair of ints): Dilation of the window: the shift of
            kernel position ``(i, j)`` is ``((i - kh // 2) * dy,
            (j - kw // 2) * dx)``.

    Returns:
        ~chainer.Variable: Array of the shape and dtype of ``x``.

    Raises:
        ValueError: If a window size is even.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.arange(9, dtype=np.float32).reshape(1, 9, 1, 1) + 1
        >>> F.shift(x).array.ravel()  # 1x1 images: only the centre group stays
        array([0., 0., 0., 0., 0., 0., 0., 0., 9.], dtype=float32)
    """
    return Shift(ksize, dilate).apply((x,))[0]
