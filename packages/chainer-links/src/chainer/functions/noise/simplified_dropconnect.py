import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer import variable
from chainer.utils import type_check


class SimplifiedDropconnect(function_node.FunctionNode):
    """Linear function whose weight elements are dropped at random."""

    def __init__(self, ratio, mask=None, use_batchwise_mask=True):
        if not 0.0 <= ratio < 1.0:
            raise ValueError(f"ratio must be in the range [0, 1), got {ratio}")
        self.ratio = ratio
        if isinstance(mask, variable.Variable):
            mask = mask.array
        self.mask = mask
        # A given mask decides by its own shape whether it is batchwise.
        if mask is not None:
            use_batchwise_mask = mask.ndim == 3
        self.use_batchwise_mask = use_batchwise_mask

    def check_type_forward(self, in_types):
        n_in = in_types.size()
        type_check.expect(n_in >= 2, n_in <= 3)
        type_check.argname(in_types, ("x", "W", "b")[: len(in_types)])
        x_type, w_type = in_types[:2]
        # NOTE: x, W and b may have different float dtypes; y has x's.
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype.kind == "f",
            x_type.ndim >= 2,
            w_type.ndim == 2,
            type_check.prod(x_type.shape[1:]) == w_type.shape[1],
        )
        if type_check.eval(n_in) == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype.kind == "f",
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[0],
            )
        if self.mask is not None:
            mask = type_check.make_variable(self.mask.shape, "mask.shape")
            if self.use_batchwise_mask:
                type_check.expect(
                    mask[0] == x_type.shape[0],
                    mask[1:] == w_type.shape,
                )
            else:
                type_check.expect(mask == w_type.shape)

    def forward(self, inputs):
        x, W = inputs[:2]
        xp = backend.get_array_module(x)
        if self.mask is None:
            if self.ratio == 0:
                # Nothing is dropped: one shared mask of ones will do.
                self.use_batchwise_mask = False
                self.mask = xp.ones(W.shape, bool)
            else:
                shape = W.shape
                if self.use_batchwise_mask:
                    shape = (x.shape[0], *shape)
                self.mask = xp.random.random_sample(shape) >= self.ratio
        self.retain_inputs((0, 1))
        # The product runs in the wider of the two dtypes.
        dtype = numpy.result_type(x.dtype, W.dtype)
        W = W.astype(dtype, copy=False) * self._scaled_mask(dtype)
        x2 = x.reshape(len(x), -1).astype(dtype, copy=False)
        # Batchwise: y[i, j] = sum_k W[i, j, k] * x[i, k].
        y = xp.matmul(W, x2[:, :, None])[:, :, 0] if W.ndim == 3 else x2 @ W.T
        y = y.astype(x.dtype, copy=False)
        if len(inputs) == 3:
            y += inputs[2].astype(x.dtype, copy=False)
        return (y,)

    def _scaled_mask(self, dtype):
        # Rebuilt when needed rather than kept: batchwise masks are large.
        dtype = numpy.dtype(dtype)
        mask = self.mask.astype(dtype)
        mask *= dtype.type(1.0 / (1 - self.ratio))
        return mask

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        dtype = numpy.result_type(x.dtype, W.dtype)
        mask = self._scaled_mask(dtype)
        x2 = primitive_ops.cast(primitive_ops.reshape(x, (x.shape[0], -1)), dtype)
        gy = primitive_ops.cast(gy, dtype)
        ret = []
        if 0 in indexes:
            W_masked = primitive_ops.cast(W, dtype) * mask
            if self.use_batchwise_mask:
                gy3 = primitive_ops.reshape(gy, (gy.shape[0], 1, gy.shape[1]))
                gx = primitive_ops.reshape(
                    primitive_ops.matmul(gy3, W_masked), x2.shape
                )
            else:
                gx = primitive_ops.matmul(gy, W_masked)
            ret.append(primitive_ops.cast(primitive_ops.reshape(gx, x.shape), x.dtype))
        if 1 in indexes:
            if self.use_batchwise_mask:
                gy3 = primitive_ops.reshape(gy, (gy.shape[0], gy.shape[1], 1))
                x3 = primitive_ops.reshape(x2, (x2.shape[0], 1, x2.shape[1]))
                gW = primitive_ops.sum(primitive_ops.matmul(gy3, x3) * mask, axis=0)
            else:
                gW = primitive_ops.matmul(primitive_ops.transpose(gy), x2) * mask
            ret.append(primitive_ops.cast(gW, W.dtype))
        if 2 in indexes:
            b_dtype = self.inputs[2].dtype
            ret.append(primitive_ops.cast(primitive_ops.sum(gy, axis=0), b_dtype))
        return tuple(ret)


def simplified_dropconnect(
    x, W, b=None, ratio=0.5, train=True, mask=None, use_batchwise_mask=True
):
    """Linear unit regularized by simplified dropconnect.

    Simplified dropconnect drops weight matrix elements randomly with
    probability ``ratio`` and scales the remaining elements by factor
    ``1 / (1 - ratio)``. It accepts two or three arguments: an input minibatch
    ``x``, a weight matrix ``W``, and optionally a bias vector ``b``. It
    computes

    .. math:: Y = x (M \\odot W)^\\top + b,

    where :math:`M` is the (scaled) mask. With ``use_batchwise_mask`` each
    sample of the minibatch has its own mask.

    In testing mode (``train`` is ``False``), it behaves as the plain linear
    function :math:`Y = x W^\\top + b` and ``mask`` is ignored.

    See `Regularization of Neural Networks using DropConnect
    <https://cs.nyu.edu/~wanli/dropc/>`_.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. Its first
            dimension ``n`` is the minibatch dimension; the other dimensions
            are flattened into one of size ``N``.
        W (~chainer.Variable or :ref:`ndarray`): Weight variable of shape
            ``(M, N)``.
        b (~chainer.Variable or :ref:`ndarray` or None): Bias variable of
            shape ``(M,)``, if any.
        ratio (float): Dropconnect ratio, in ``[0, 1)``.
        train (bool): If ``True``, executes simplified dropconnect; otherwise
            the function is the linear function.
        mask (:ref:`ndarray` or None): If None, a random mask is drawn.
            Otherwise a boolean (or 0/1) array of shape ``(n, M, N)`` or
            ``(M, N)`` that keeps the weights where it is true; its shape then
            decides whether it is batchwise and ``use_batchwise_mask`` is
            ignored. Mainly for debugging.
        use_batchwise_mask (bool): If ``True``, dropped connections depend on
            each sample in the minibatch.

    Returns:
        ~chainer.Variable: Output variable of shape ``(n, M)``.

    .. seealso:: :class:`~chainer.links.SimplifiedDropconnect`

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.ones((2, 3), np.float32)
        >>> W = np.ones((4, 3), np.float32)
        >>> mask = np.array([[1, 0, 1]] * 4, bool)
        >>> F.simplified_dropconnect(x, W, ratio=0.5, mask=mask).array
        array([[4., 4., 4., 4.],
               [4., 4., 4., 4.]], dtype=float32)
    """
    if not train:
        ratio = 0.0
        mask = None
    func = SimplifiedDropconnect(ratio, mask, use_batchwise_mask)
    if b is None:
        (y,) = func.apply((x, W))
    else:
        (y,) = func.apply((x, W, b))
    return y
