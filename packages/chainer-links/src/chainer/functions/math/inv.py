import numpy

from chainer import backend
from chainer import function_node
from chainer.functions.math import matmul
from chainer.utils import type_check


def _inv(a):
    xp = backend.get_array_module(a)
    # LAPACK has no half precision: invert in float32 and cast back.
    ac = a.astype(numpy.float32) if a.dtype == numpy.float16 else a
    try:
        y = xp.linalg.inv(ac)
    except numpy.linalg.LinAlgError as e:
        raise ValueError(f"Input has singular matrices. ({e})") from None
    return y.astype(a.dtype, copy=False)


def _inv_grad(y, gy):
    # d(A^-1) = -A^-1 dA A^-1, so gA = -Y^T gY Y^T with Y = A^-1.
    return -matmul.matmul(matmul.matmul(y, gy, transa=True), y, transb=True)


class Inv(function_node.FunctionNode):
    """Inverse of a square matrix."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (a_type,) = in_types
        type_check.expect(
            a_type.dtype.kind == "f",
            a_type.ndim == 2,
            a_type.shape[0] == a_type.shape[1],
        )

    def forward(self, inputs):
        (a,) = inputs
        self.retain_outputs((0,))
        return (_inv(a),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        return (_inv_grad(y, gy),)


class BatchInv(function_node.FunctionNode):
    """Inverses of a batch of square matrices."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (a_type,) = in_types
        type_check.expect(
            a_type.dtype.kind == "f",
            a_type.ndim == 3,
            a_type.shape[-1] == a_type.shape[-2],
        )

    def forward(self, inputs):
        (a,) = inputs
        self.retain_outputs((0,))
        return (_inv(a),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        return (_inv_grad(y, gy),)


def inv(a):
    """Computes the inverse of a square matrix.

    Args:
        a (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, n)``.

    Returns:
        ~chainer.Variable: The inverse, of shape ``(n, n)`` and the dtype of
        ``a``.

    Raises:
        ValueError: If ``a`` is singular.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> a = np.array([[2, 0], [0, 4]], np.float32)
        >>> F.inv(a).array
        array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    (y,) = Inv().apply((a,))
    return y


def batch_inv(a):
    """Computes the inverse of a batch of square matrices.

    Args:
        a (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(m, n, n)``: ``m`` square matrices of size ``n``.

    Returns:
        ~chainer.Variable: The inverse of every matrix, of shape ``(m, n, n)``
        and the dtype of ``a``.

    Raises:
        ValueError: If some matrix of ``a`` is singular.
    """
    (y,) = BatchInv().apply((a,))
    return y
