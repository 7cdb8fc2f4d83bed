import numbers

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class Tile(function_node.FunctionNode):
    """Repetition of a whole array along each axis."""

    def __init__(self, reps):
        self.reps = reps

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        return (xp.tile(x, self.reps),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        shape = self.inputs[0].shape
        ndim = max(len(shape), len(self.reps))
        reps = (1,) * (ndim - len(self.reps)) + self.reps
        x_shape = (1,) * (ndim - len(shape)) + shape
        # Interleave (rep, size) per axis, then sum the rep axes away.
        split = []
        for r, s in zip(reps, x_shape, strict=True):
            split += [r, s]
        gx = primitive_ops.reshape(gy, tuple(split))
        gx = primitive_ops.sum(gx, axis=tuple(range(0, 2 * ndim, 2)))
        return (primitive_ops.reshape(gx, shape),)


def tile(x, reps):
    """Constructs an array by repeating ``x`` ``reps`` times along each axis.

    Same as :func:`numpy.tile`: when ``reps`` is longer than ``x.ndim``,
    ``x`` gets leading axes of length one; when it is shorter, ones are
    prepended to ``reps``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input array of any shape.
        reps (int or tuple of ints): Number of repetitions per axis; all
            zero or larger.

    Returns:
        ~chainer.Variable: The tiled array, of ``max(x.ndim, len(reps))``
        dimensions.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([0, 1, 2], np.float32)
        >>> F.tile(x, 2).array
        array([0., 1., 2., 0., 1., 2.], dtype=float32)
        >>> F.tile(x, (2, 1)).shape
        (2, 3)
    """
    if isinstance(reps, numbers.Integral) and not isinstance(reps, bool):
        reps = (int(reps),)
    elif isinstance(reps, tuple) and all(
        isinstance(r, numbers.Integral) and not isinstance(r, bool) for r in reps
    ):
        reps = tuple(int(r) for r in reps)
    else:
        raise TypeError(f"reps must be int or tuple of ints, not {reps!r}")
    if any(r < 0 for r in reps):
        raise ValueError(f"all elements in reps must be zero or larger: {reps}")
    (y,) = Tile(reps).apply((x,))
    return y
