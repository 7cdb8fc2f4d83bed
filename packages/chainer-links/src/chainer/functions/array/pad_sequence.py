import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class PadSequence(function_node.FunctionNode):
    """Stacking of sequences of different lengths into one padded array."""

    def __init__(self, length, padding):
        if length is not None:
            length = int(length)
        self.length = length
        if not numpy.isscalar(padding):
            raise ValueError(f"pad_sequence: padding must be a scalar, got {padding!r}")
        self.padding = padding

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() > 0)
        n = type_check.eval(in_types.size())
        type_check.argname(in_types, tuple(f"x{i}" for i in range(n)))
        x0 = in_types[0]
        for i in range(n):
            x = in_types[i]
            type_check.expect(
                x.ndim > 0,
                x.shape[1:] == x0.shape[1:],
                x.dtype == x0.dtype,
            )
            if self.length is not None:
                length = type_check.make_variable(self.length, "length")
                type_check.expect(x.shape[0] <= length)

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        length = self.length
        if length is None:
            length = max(len(x) for x in inputs)
        x0 = inputs[0]
        y = xp.empty((len(inputs), length, *x0.shape[1:]), x0.dtype)
        for i, x in enumerate(inputs):
            n = len(x)
            y[i, :n] = x
            if n < length:
                y[i, n:] = self.padding
        return (y,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        inputs = self.inputs
        return tuple(
            primitive_ops.get_item(gy, (i, slice(0, inputs[i].shape[0])))
            for i in indexes
        )


def pad_sequence(xs, length=None, padding=0):
    """Pads given arrays to make a matrix.

    Args:
        xs (list of ~chainer.Variable or :ref:`ndarray`): Arrays of one dtype,
            at least 1-d, whose shapes agree except in the first axis.
        length (None or int): Size of the first axis of each padded row; None
            means the longest first axis in ``xs``.
        padding (int or float): The value to fill with.

    Returns:
        ~chainer.Variable: Variable of shape ``(len(xs), length, ...)``: row
        ``i`` holds ``xs[i]`` followed by ``padding``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> xs = [np.array([1, 2, 3], np.int32), np.array([4], np.int32)]
        >>> F.pad_sequence(xs, padding=-1).array
        array([[ 1,  2,  3],
               [ 4, -1, -1]], dtype=int32)
    """
    (y,) = PadSequence(length, padding).apply(xs)
    return y
