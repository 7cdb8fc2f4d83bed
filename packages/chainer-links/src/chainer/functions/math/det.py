import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.math import inv
from chainer.utils import type_check


class BatchDet(function_node.FunctionNode):
    """Determinants of a batch of square matrices."""

    @property
    def label(self):
        return "det"

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
        xp = backend.get_array_module(a)
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        # LAPACK has no half precision: compute in float32 and cast back.
        ac = a.astype(numpy.float32) if a.dtype == numpy.float16 else a
        return (xp.linalg.det(ac).astype(a.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        (a,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        # d det(A) / dA = det(A) * A^-T.
        scale = primitive_ops.reshape(gy * y, (len(y), 1, 1))
        a_inv_t = primitive_ops.transpose(inv.batch_inv(a), (0, 2, 1))
        return (primitive_ops.broadcast_to(scale, a.shape) * a_inv_t,)


def batch_det(a):
    """Computes the determinants of a batch of square matrices.

    Args:
        a (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(m, n, n)``: ``m`` square matrices of size ``n``.

    Returns:
        ~chainer.Variable: The determinants, of shape ``(m,)`` and the dtype
        of ``a``. The gradient needs invertible matrices.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> a = np.array([[[2, 0], [0, 3]], [[1, 2], [3, 4]]], np.float32)
        >>> F.batch_det(a).array.round(4)
        array([ 6., -2.], dtype=float32)
    """
    (y,) = BatchDet().apply((a,))
    return y


def det(a):
    """Computes the determinant of a single square matrix.

    Args:
        a (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, n)``.

    Returns:
        ~chainer.Variable: The determinant, a 0-d array of the dtype of ``a``.
        The gradient needs an invertible matrix.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> a = np.array([[1, 2], [3, 4]], np.float32)
        >>> round(float(F.det(a).array), 4)
        -2.0
    """
    if a.ndim != 2:
        raise type_check.InvalidType("a.ndim == 2", f"{a.ndim} != 2")
    (y,) = BatchDet().apply((primitive_ops.reshape(a, (1, *a.shape)),))
    return primitive_ops.reshape(y, ())
