import numbers

from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class Space2Depth(function_node.FunctionNode):
    """Moves ``r x r`` spatial blocks into channels."""

    def __init__(self, r):
        self.r = r

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("X",))
        (x_type,) = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
        )
        r = type_check.make_variable(self.r, "r")
        type_check.expect(
            x_type.shape[2] % r == 0,
            x_type.shape[3] % r == 0,
        )

    def forward(self, inputs):
        (x,) = inputs
        r = self.r
        n, c, hr, wr = x.shape
        h, w = hr // r, wr // r
        y = x.reshape(n, c, h, r, w, r).transpose(0, 3, 5, 1, 2, 4)
        return (y.reshape(n, r * r * c, h, w),)

    def backward(self, indexes, grad_outputs):
        # The inverse rearrangement (depth2space), built from differentiable
        # reshapes and transposes.
        (gy,) = grad_outputs
        r = self.r
        n, rrc, h, w = gy.shape
        c = rrc // (r * r)
        gx = primitive_ops.reshape(gy, (n, r, r, c, h, w))
        gx = primitive_ops.transpose(gx, (0, 3, 4, 1, 5, 2))
        return (primitive_ops.reshape(gx, (n, c, h * r, w * r)),)


def space2depth(X, r):
    """Computes the space2depth transformation for subpixel calculations.

    The inverse of :func:`~chainer.functions.depth2space`: the input pixel
    ``(y * r + i, x * r + j)`` of channel ``k`` becomes channel
    ``(i * r + j) * c + k`` of the output at pixel ``(y, x)``.

    Args:
        X (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)``; ``h`` and ``w`` must be divisible by ``r``.
        r (int): The downscaling factor.

    Returns:
        ~chainer.Variable: Variable of shape ``(n, c * r ** 2, h / r, w / r)``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> X = np.arange(24).reshape(1, 1, 4, 6).astype(np.float32)
        >>> F.space2depth(X, 2).array
        array([[[[ 0.,  2.,  4.],
                 [12., 14., 16.]],
        <BLANKLINE>
                [[ 1.,  3.,  5.],
                 [13., 15., 17.]],
        <BLANKLINE>
                [[ 6.,  8., 10.],
                 [18., 20., 22.]],
        <BLANKLINE>
                [[ 7.,  9., 11.],
                 [19., 21., 23.]]]], dtype=float32)
    """
    if not isinstance(r, numbers.Integral) or isinstance(r, bool):
        raise TypeError(f"r must be an int, not {r!r}")
    if r < 1:
        raise ValueError(f"r must be positive, got {r}")
    (y,) = Space2Depth(int(r)).apply((X,))
    return y
