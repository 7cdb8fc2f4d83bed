import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class BatchL2NormSquared(function_node.FunctionNode):
    """Squared L2 norm of every sample of a batch."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= 2)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        x = x.reshape(x.shape[0], x.size // x.shape[0] if x.shape[0] else 0)
        if x.dtype == numpy.float16:
            # Sums of many float16 squares lose precision; add in float32.
            x = x.astype(numpy.float32)
            return (xp.einsum("ij,ij->i", x, x).astype(numpy.float16),)
        return (xp.einsum("ij,ij->i", x, x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        gy = primitive_ops.reshape(gy, (len(gy),) + (1,) * (x.ndim - 1))
        return (primitive_ops.broadcast_to(gy, x.shape) * x * 2,)


def batch_l2_norm_squared(x):
    """L2 norm (a.k.a. Euclidean norm) squared of every sample.

    No reduction along the batch axis is done.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(N, ...)`` with ``ndim >= 2``. The first dimension is the
            minibatch; the others are flattened into one.

    Returns:
        ~chainer.Variable: The squared norms, of shape ``(N,)`` and the dtype
        of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[1, 2], [3, 4]], np.float32)
        >>> F.batch_l2_norm_squared(x).array
        array([ 5., 25.], dtype=float32)
    """
    (y,) = BatchL2NormSquared().apply((x,))
    return y
