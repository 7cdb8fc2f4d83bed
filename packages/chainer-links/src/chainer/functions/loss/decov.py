from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _center(h):
    # Variable version of h - mean(h, axis=0).
    n = h.shape[0]
    mean = primitive_ops.sum(h, axis=0, keepdims=True) * (1.0 / n)
    return h - primitive_ops.broadcast_to(mean, h.shape)


class DeCov(function_node.FunctionNode):
    """DeCov penalty: the off-diagonal covariance of hidden activations."""

    def __init__(self, reduce="half_squared_sum"):
        if reduce not in ("half_squared_sum", "no"):
            raise ValueError(
                "only 'half_squared_sum' and 'no' are valid for 'reduce', "
                f"but {reduce!r} is given"
            )
        self.reduce = reduce

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("h",))
        (h_type,) = in_types
        type_check.expect(h_type.dtype.kind == "f")
        type_check.expect(h_type.ndim == 2)
        type_check.expect(h_type.shape[0] > 0)

    def forward(self, inputs):
        self.retain_inputs((0,))
        (h,) = inputs
        xp = backend.get_array_module(h)
        hc = h - h.mean(axis=0, keepdims=True)
        cov = hc.T.dot(hc) / len(h)
        self._off_diag = 1 - xp.eye(cov.shape[0], dtype=h.dtype)
        cov *= self._off_diag
        if self.reduce == "half_squared_sum":
            cov = 0.5 * xp.vdot(cov, cov)
        return (xp.asarray(cov, dtype=h.dtype),)

    def backward(self, indexes, grad_outputs):
        (h,) = self.get_retained_inputs()
        (gcost,) = grad_outputs
        n = h.shape[0]
        hc = _center(h)
        if self.reduce == "half_squared_sum":
            # d(0.5 |C|^2)/dC = C, with C = off_diag * hc^T hc / N.
            cov = (
                primitive_ops.matmul(primitive_ops.transpose(hc), hc)
                * (1.0 / n)
                * self._off_diag
            )
            gcov = primitive_ops.broadcast_to(gcost, cov.shape) * cov
        else:
            gcov = gcost * self._off_diag
        # C depends on hc through hc^T hc, so dC contributes hc (G + G^T) / N;
        # centering is self-adjoint, so centering that gives the gradient of h.
        gsym = gcov + primitive_ops.transpose(gcov)
        return (_center(primitive_ops.matmul(hc, gsym) * (1.0 / n)),)


def decov(h, reduce="half_squared_sum"):
    """DeCov loss: penalises cross-covariance between hidden units.

    .. math::
        L = \\frac{1}{2} \\left( \\| C \\|_F^2 - \\| {\\rm diag}(C) \\|_2^2
        \\right), \\quad C = \\frac{1}{N} (h - \\bar{h})^\\top (h - \\bar{h})

    where :math:`\\bar{h}` is the mean of ``h`` over the batch.

    Args:
        h (~chainer.Variable or :ref:`ndarray`): Float activations of shape
            ``(N, M)``.
        reduce (str): ``'half_squared_sum'`` gives :math:`L`; ``'no'`` gives
            the covariance matrix with a zeroed diagonal, of shape
            ``(M, M)``.

    Returns:
        ~chainer.Variable: The loss (a scalar) or the matrix, of ``h``'s
        dtype.

    .. note::
        See `Reducing Overfitting In Deep Networks by Decorrelating
        Representations <https://arxiv.org/abs/1511.06068>`_.
    """
    (loss,) = DeCov(reduce).apply((h,))
    return loss
