import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.math import inv
from chainer.functions.math import matmul
from chainer.utils import type_check


class Cholesky(function_node.FunctionNode):
    """Cholesky factor of a symmetric positive-definite matrix."""

    @property
    def label(self):
        return "cholesky"

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
        xp = backend.get_array_module(a)
        self.retain_outputs((0,))
        # LAPACK has no half precision: factorise in float32 and cast back.
        ac = a.astype(numpy.float32) if a.dtype == numpy.float16 else a
        return (xp.linalg.cholesky(ac).astype(a.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        xp = backend.get_array_module(y.array)
        n = y.shape[0]
        # Murray (2016), "Differentiation of the Cholesky decomposition":
        # Phi takes the lower triangle with the diagonal halved, and
        # gA = sym(L^-T Phi(L^T gL) L^-1), symmetrised as A is symmetric.
        mask = xp.tri(n, dtype=y.dtype) - xp.eye(n, dtype=y.dtype) * 0.5
        phi = matmul.matmul(y, gy, transa=True) * mask
        y_inv = inv.inv(y)
        s = matmul.matmul(matmul.matmul(y_inv, phi, transa=True), y_inv)
        return ((s + primitive_ops.transpose(s)) * 0.5,)


def cholesky(a):
    """Cholesky decomposition of a symmetric positive-definite matrix.

    Returns the lower-triangular :math:`L` with :math:`A = L L^\\top`. Only
    the lower triangle of ``a`` is read; the gradient is symmetric.

    Args:
        a (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, n)``, symmetric and positive definite.

    Returns:
        ~chainer.Variable: The lower-triangular factor, of shape ``(n, n)``
        and the dtype of ``a``.

    Raises:
        numpy.linalg.LinAlgError: If ``a`` is not positive definite.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> a = np.array([[4, 2], [2, 5]], np.float32)
        >>> F.cholesky(a).array
        array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    (y,) = Cholesky().apply((a,))
    return y
