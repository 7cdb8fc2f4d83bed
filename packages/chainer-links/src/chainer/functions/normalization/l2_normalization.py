import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.math import sqrt
from chainer.utils import type_check


class NormalizeL2(function_node.FunctionNode):
    """L2 normalization along axes: ``x / (||x|| + eps)``."""

    def __init__(self, eps=1e-5, axis=1):
        self.eps = eps
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")
        ndim = type_check.eval(x_type.ndim)
        for a in self.axis:
            if not -ndim <= a < ndim:
                raise type_check.InvalidType(
                    f"-x.ndim <= axis < x.ndim = {ndim}", f"axis = {a}"
                )

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        xc = x if x.dtype.itemsize >= 4 else x.astype(numpy.float32)
        norm = xp.sqrt(xp.square(xc).sum(axis=self.axis, keepdims=True))
        norm += self.eps
        self.retain_inputs((0,))
        return ((xc / norm).astype(x.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        # gx = gy / (n + eps) - x sum(gy x) / ((n + eps)^2 n), n = ||x||.
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        dtype = x.dtype
        if dtype.itemsize < 4:
            x = primitive_ops.cast(x, numpy.float32)
            gy = primitive_ops.cast(gy, numpy.float32)
        sq = primitive_ops.sum(x * x, axis=self.axis, keepdims=True)
        # A zero vector has a zero second term; n is taken as 1 there so
        # neither this gradient nor its own gradient divides by zero.
        zero = (sq.array == 0).astype(sq.dtype)
        n = sqrt.sqrt(sq + zero)
        norm = n - zero + self.eps
        dot = primitive_ops.sum(gy * x, axis=self.axis, keepdims=True)
        gx = gy / norm - x * (dot / (norm * norm * n))
        return (gx if gx.dtype == dtype else primitive_ops.cast(gx, dtype),)


def normalize(x, eps=1e-05, axis=1):
    """Normalize input by L2 norm.

    This function implements L2 normalization on a sample along the given
    axis/axes. No reduction is done along the normalization axis.

    In the case when :obj:`axis=1` and :math:`\\mathbf{x}` is a matrix of
    dimension :math:`(N, K)`, where :math:`N` and :math:`K` denote mini-batch
    size and the dimension of the input vectors, this function computes an
    output matrix :math:`\\mathbf{y}` of dimension :math:`(N, K)` by the
    following equation:

    .. math::
       \\mathbf{y}_i =
           {\\mathbf{x}_i \\over \\| \\mathbf{x}_i \\|_2 + \\epsilon}

    :obj:`eps` is used to avoid division by zero when norm of
    :math:`\\mathbf{x}` along the given axis is zero.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input of any shape.
        eps (float): Epsilon value for numerical stability.
        axis (int or tuple of ints): Axis along which to normalize.

    Returns:
        ~chainer.Variable: Output variable, same shape and dtype as ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[3, 4], [0, 0]], np.float32)
        >>> F.normalize(x).array.round(4)
        array([[0.6, 0.8],
               [0. , 0. ]], dtype=float32)
    """
    (y,) = NormalizeL2(eps, axis).apply((x,))
    return y
