from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _param_shape(x_ndim, w_shape):
    # W's axes sit right after the batch axis; other axes broadcast.
    return (1, *w_shape) + (1,) * (x_ndim - 1 - len(w_shape))


class PReLUFunction(function_node.FunctionNode):
    """Parametric ReLU with a learned slope ``W`` for negative inputs."""

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "W"))
        x_type, W_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            W_type.dtype == x_type.dtype,
            x_type.ndim >= W_type.ndim + 1,
            x_type.shape[1 : 1 + type_check.eval(W_type.ndim)] == W_type.shape,
        )

    def forward(self, inputs):
        x, W = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0, 1))
        Wb = W.reshape(_param_shape(x.ndim, W.shape))
        return (xp.where(x < 0, x * Wb, x),)

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        neg = x.array < 0
        shape = _param_shape(x.ndim, W.shape)
        ret = []
        if 0 in indexes:
            Wb = primitive_ops.reshape(W, shape)
            ret.append(gy * (Wb * neg + ~neg))
        if 1 in indexes:
            gW = primitive_ops.sum_to(gy * (x * neg), shape)
            ret.append(primitive_ops.reshape(gW, W.shape))
        return tuple(ret)


def prelu(x, W):
    """Parametric ReLU function.

    It accepts two arguments: an input ``x`` and a weight array ``W``
    and computes the output as

    .. math::
        PReLU(x_i) = \\left \\{ \\begin{array}{ll}
        x_i & (x_i \\ge 0) \\\\ W_i x_i & (x_i < 0), \\end{array} \\right.

    where :math:`W_i` is the element of ``W`` for :math:`x_i`, broadcast over
    the batch axis and the trailing axes. When combined with two-dimensional
    convolution, ``W`` typically has the shape of the channel axis so that
    its elements are shared across the pixels of each filter.

    For example, if ``W`` has the shape :math:`(2, 3, 4)`, ``x`` must have the
    shape :math:`(B, 2, 3, 4, S_1, ..., S_N)` where :math:`B` is the batch size
    and the number of trailing :math:`S`'s is an arbitrary non-negative
    integer.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable, a float array
            with ``x.shape[1:1 + W.ndim] == W.shape``.
        W (~chainer.Variable or :ref:`ndarray`): Weight variable of the same
            dtype as ``x``.

    Returns:
        ~chainer.Variable: Output variable of the shape of ``x``.

    .. seealso:: :class:`~chainer.links.PReLU`

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[-2, 1], [4, -6]], np.float32)
        >>> W = np.array([0.5, 0.1], np.float32)
        >>> F.prelu(x, W).array
        array([[-1. ,  1. ],
               [ 4. , -0.6]], dtype=float32)
    """
    (y,) = PReLUFunction().apply((x, W))
    return y
