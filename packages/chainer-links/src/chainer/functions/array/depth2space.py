from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class Depth2Space(function_node.FunctionNode):
    """Moves blocks of channels into ``r x r`` spatial blocks."""

    def __init__(self, r):
        if isinstance(r, bool) or not isinstance(r, int):
            raise TypeError(f"depth2space: r must be int, got {type(r).__name__}")
        if r < 1:
            raise ValueError(f"depth2space: r must be positive, got {r}")
        self.r = r

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("X",))
        (x_type,) = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
        )
        type_check.expect(x_type.shape[1] % (self.r * self.r) == 0)

    def forward(self, inputs):
        (x,) = inputs
        r = self.r
        n, c, h, w = x.shape
        c //= r * r
        y = x.transpose(0, 2, 3, 1).reshape(n, h, w, r, r, c)
        y = y.transpose(0, 1, 3, 2, 4, 5).reshape(n, h * r, w * r, c)
        return (y.transpose(0, 3, 1, 2),)

    def backward(self, indexes, grad_outputs):
        # The inverse rearrangement (space2depth), built from differentiable
        # reshapes and transposes.
        (gy,) = grad_outputs
        r = self.r
        n, c, hr, wr = gy.shape
        h, w = hr // r, wr // r
        gx = primitive_ops.transpose(gy, (0, 2, 3, 1))
        gx = primitive_ops.reshape(gx, (n, h, r, w, r, c))
        gx = primitive_ops.transpose(gx, (0, 1, 3, 2, 4, 5))
        gx = primitive_ops.reshape(gx, (n, h, w, r * r * c))
        return (primitive_ops.transpose(gx, (0, 3, 1, 2)),)


def depth2space(X, r):
    """Computes the depth2space transformation for subpixel calculations.

    Channel ``(i * r + j) * C + k`` of the input at pixel ``(y, x)`` becomes
    channel ``k`` of the output at pixel ``(y * r + i, x * r + j)``, with
    ``C = c / r ** 2``.

    Args:
        X (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)``; ``c`` must be divisible by ``r ** 2``.
        r (int): The upscaling factor.

    Returns:
        ~chainer.Variable: Variable of shape ``(n, c / r ** 2, h * r, w * r)``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> X = np.arange(24).reshape(1, 4, 2, 3).astype(np.float32)
        >>> F.depth2space(X, 2).array
        array([[[[ 0.,  6.,  1.,  7.,  2.,  8.],
                 [12., 18., 13., 19., 14., 20.],
                 [ 3.,  9.,  4., 10.,  5., 11.],
                 [15., 21., 16., 22., 17., 23.]]]], dtype=float32)
    """
    (y,) = Depth2Space(r).apply((X,))
    return y
