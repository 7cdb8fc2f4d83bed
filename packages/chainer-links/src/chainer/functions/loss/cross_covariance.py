from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _center(x):
    # Variable version of x - mean(x, axis=0).
    n = x.shape[0]
    mean = primitive_ops.sum(x, axis=0, keepdims=True) * (1.0 / n)
    return x - primitive_ops.broadcast_to(mean, x.shape)


class CrossCovariance(function_node.FunctionNode):
    """Cross-covariance penalty between two batches of vectors."""

    def __init__(self, reduce="half_squared_sum"):
        if reduce not in ("half_squared_sum", "no"):
            raise ValueError(
                "only 'half_squared_sum' and 'no' are valid for 'reduce', "
                f"but {reduce!r} is given"
            )
        self.reduce = reduce

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("y", "z"))
        y_type, z_type = in_types
        type_check.expect(y_type.dtype.kind == "f")
        type_check.expect(y_type.dtype == z_type.dtype)
        type_check.expect(y_type.ndim == 2)
        type_check.expect(z_type.ndim == 2)
        type_check.expect(y_type.shape[0] == z_type.shape[0])
        type_check.expect(y_type.shape[0] > 0)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        y, z = inputs
        xp = backend.get_array_module(y)
        yc = y - y.mean(axis=0, keepdims=True)
        zc = z - z.mean(axis=0, keepdims=True)
        cov = yc.T.dot(zc) / len(y)
        if self.reduce == "half_squared_sum":
            cov = 0.5 * xp.vdot(cov, cov)
        return (xp.asarray(cov, dtype=y.dtype),)

    def backward(self, indexes, grad_outputs):
        y, z = self.get_retained_inputs()
        (gcost,) = grad_outputs
        n = y.shape[0]
        yc = _center(y)
        zc = _center(z)
        if self.reduce == "half_squared_sum":
            # d(0.5 |C|^2)/dC = C, with C = yc^T zc / N.
            gcov = primitive_ops.matmul(primitive_ops.transpose(yc), zc) * (1.0 / n)
            gcov = primitive_ops.broadcast_to(gcost, gcov.shape) * gcov
        else:
            gcov = gcost
        # Centering is a projection whose adjoint is itself, so centering the
        # gradients of yc and zc gives those of y and z.
        ret = []
        if 0 in indexes:
            ret.append(
                _center(
                    primitive_ops.matmul(zc, primitive_ops.transpose(gcov)) * (1.0 / n)
                )
            )
        if 1 in indexes:
            ret.append(_center(primitive_ops.matmul(yc, gcov) * (1.0 / n)))
        return ret


def cross_covariance(y, z, reduce="half_squared_sum"):
    """Sum-squared cross-covariance penalty between ``y`` and ``z``.

    .. math::
        L = \\frac{1}{2} \\sum_{i, j} C_{ij}^2, \\quad
        C = \\frac{1}{N} (y - \\bar{y})^\\top (z - \\bar{z})

    where :math:`\\bar{y}` and :math:`\\bar{z}` are the means over the batch.

    Args:
        y (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(N, M)``.
        z (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(N, K)`` and ``y``'s dtype.
        reduce (str): ``'half_squared_sum'`` gives :math:`L`; ``'no'`` gives
            the cross-covariance matrix :math:`C` of shape ``(M, K)``.

    Returns:
        ~chainer.Variable: The loss (a scalar) or the matrix, of ``y``'s
        dtype.

    .. note::
        This cost can be used to disentangle variables. See
        https://arxiv.org/abs/1412.6583v3 for details.
    """
    (loss,) = CrossCovariance(reduce).apply((y, z))
    return loss
