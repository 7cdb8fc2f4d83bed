import warnings

import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.primitive_ops.basic_math import (
    MatMul as MatMul,  # the node F.matmul applies
)
from chainer.utils import type_check


def _swap_last(x):
    axes = list(range(x.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return primitive_ops.transpose(x, tuple(axes))


def matmul(a, b, transa=False, transb=False):
    """Computes the matrix multiplication of two arrays.

    Two 1-d arrays give their dot product, 2-d arrays their matrix product.
    Arrays of more dimensions are stacks of matrices in the last two axes,
    broadcast against each other in the leading ones (NumPy's ``matmul``).

    Args:
        a (~chainer.Variable or :ref:`ndarray`): The left operand, a float
            array with ``ndim >= 1``.
        b (~chainer.Variable or :ref:`ndarray`): The right operand, a float
            array with ``ndim >= 1``.
        transa (bool): If ``True``, each matrix in ``a`` is transposed
            (nothing happens to a 1-d ``a``).
        transb (bool): If ``True``, each matrix in ``b`` is transposed
            (nothing happens to a 1-d ``b``).

    Returns:
        ~chainer.Variable: The result of the matrix multiplication. Operands
        of different float dtypes give the promoted dtype.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> a = np.array([[1, 0], [0, 1]], np.float32)
        >>> b = np.array([[4, 1], [2, 2]], np.float32)
        >>> F.matmul(a, b, transb=True).array
        array([[4., 2.],
               [1., 2.]], dtype=float32)
    """
    if transa and a.ndim >= 2:
        a = _swap_last(a)
    if transb and b.ndim >= 2:
        b = _swap_last(b)
    if a.dtype != b.dtype:
        dtype = numpy.result_type(a.dtype, b.dtype)
        a = primitive_ops.cast(a, dtype)
        b = primitive_ops.cast(b, dtype)
    return primitive_ops.matmul(a, b)


def _batch_mat_shape(shape):
    # (B, N) holds B column vectors; (B, M, N) holds B matrices.
    if len(shape) == 2:
        return (*shape, 1)
    return shape


class BatchMatMul(function_node.FunctionNode):
    """Matrix products of two batches of matrices (see :func:`batch_matmul`)."""

    def __init__(self, transa=False, transb=False):
        self.transa = transa
        self.transb = transb

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        a_type, b_type = in_types
        type_check.expect(
            a_type.dtype.kind == "f",
            a_type.dtype == b_type.dtype,
            a_type.ndim >= 2,
            a_type.ndim <= 3,
            b_type.ndim >= 2,
            b_type.ndim <= 3,
            a_type.shape[0] == b_type.shape[0],
        )
        a_shape = _batch_mat_shape(tuple(type_check.eval(a_type.shape)))
        b_shape = _batch_mat_shape(tuple(type_check.eval(b_type.shape)))
        k_a = a_shape[1] if self.transa else a_shape[2]
        k_b = b_shape[2] if self.transb else b_shape[1]
        if k_a != k_b:
            raise type_check.InvalidType(
                "inner dimensions of the (transposed) matrices of a and b agree",
                f"a.shape={a_shape}, b.shape={b_shape}, transa={self.transa}, "
                f"transb={self.transb}",
            )

    def forward(self, inputs):
        a, b = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(a)
        a = a.reshape(_batch_mat_shape(a.shape))
        b = b.reshape(_batch_mat_shape(b.shape))
        if self.transa:
            a = a.swapaxes(1, 2)
        if self.transb:
            b = b.swapaxes(1, 2)
        return (xp.matmul(a, b),)

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        (gy,) = grad_outputs
        a3 = primitive_ops.reshape(a, _batch_mat_shape(a.shape))
        b3 = primitive_ops.reshape(b, _batch_mat_shape(b.shape))
        ret = []
        if 0 in indexes:
            if self.transa:
                ga = matmul(b3, gy, transa=self.transb, transb=True)
            else:
                ga = matmul(gy, b3, transb=not self.transb)
            ret.append(primitive_ops.reshape(ga, a.shape))
        if 1 in indexes:
            if self.transb:
                gb = matmul(gy, a3, transa=True, transb=self.transa)
            else:
                gb = matmul(a3, gy, transa=not self.transa)
            ret.append(primitive_ops.reshape(gb, b.shape))
        return tuple(ret)


def batch_matmul(a, b, transa=False, transb=False):
    """Computes the batch matrix multiplications of two sets of arrays.

    .. deprecated:: v3.0.0
       Use :func:`~chainer.functions.matmul` instead.

    Args:
        a (~chainer.Variable or :ref:`ndarray`): The left operand. A 2-d
            array of shape ``(B, N)`` is taken as ``B`` matrices of shape
            ``(N, 1)``; a 3-d array of shape ``(B, M, N)`` as ``B`` matrices of
            shape ``(M, N)``.
        b (~chainer.Variable or :ref:`ndarray`): The right operand, taken as
            matrices in the same way as ``a``, with the same batch size.
        transa (bool): If ``True``, transpose each matrix in ``a``.
        transb (bool): If ``True``, transpose each matrix in ``b``.

    Returns:
        ~chainer.Variable: The result of the batch matrix multiplications, a
        3-d array.
    """
    warnings.warn("batch_matmul is deprecated. Use matmul instead.", DeprecationWarning)
    (y,) = BatchMatMul(transa, transb).apply((a, b))
    return y
