import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _window_sum(a, half):
    # Sum over channels i - half .. i + half (clipped at the borders). One
    # whole-array addition per window offset: for the usual n = 5 this beats
    # a cumulative sum (3 passes plus padding) and stays exact.
    s = a.copy()
    for k in range(1, half + 1):
        s[:, k:] += a[:, :-k]
        s[:, :-k] += a[:, k:]
    return s


class _ChannelWindowSum(function_node.FunctionNode):
    """Sum over a symmetric window of channels; its own adjoint."""

    def __init__(self, half):
        self.half = half

    def forward(self, inputs):
        return (_window_sum(inputs[0], self.half),)

    def backward(self, indexes, grad_outputs):
        return _ChannelWindowSum(self.half).apply(grad_outputs)


class LocalResponseNormalization(function_node.FunctionNode):
    """Cross-channel local response normalization."""

    def __init__(self, n=5, k=2, alpha=1e-4, beta=0.75):
        self.n = n
        self.k = k
        self.alpha = alpha
        self.beta = beta

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= 2)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        xc = x if x.dtype.itemsize >= 4 else x.astype(numpy.float32)
        scale = _window_sum(xc * xc, self.n // 2)
        scale *= self.alpha
        scale += self.k
        # y = x * scale ** -beta; scale >= k > 0 for the usual k.
        xp.power(scale, -self.beta, out=scale)
        scale *= xc
        self.retain_inputs((0,))
        return (scale.astype(x.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        # gx = gy * s^-beta - 2 alpha beta x W(gy x s^(-beta - 1)), with
        # s = k + alpha W(x^2) and W the (self-adjoint) window sum; written
        # with differentiable ops, so double backprop is exact.
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        dtype = x.dtype
        if dtype.itemsize < 4:
            x = primitive_ops.cast(x, numpy.float32)
            gy = primitive_ops.cast(gy, numpy.float32)
        window = self.n // 2
        (s,) = _ChannelWindowSum(window).apply((x * x,))
        s = s * self.alpha + self.k
        u = s ** (-self.beta)
        (w,) = _ChannelWindowSum(window).apply((gy * x * u / s,))
        gx = gy * u - x * w * (2.0 * self.alpha * self.beta)
        return (gx if gx.dtype == dtype else primitive_ops.cast(gx, dtype),)


def local_response_normalization(x, n=5, k=2, alpha=0.0001, beta=0.75):
    """Local response normalization across neighboring channels.

    This function implements normalization across channels. Let :math:`x` an
    input image with :math:`N` channels. Then, this function computes an
    output image :math:`y` by following formula:

    .. math::
       y_i = {x_i \\over \\left( k + \\
              \\alpha \\sum_{j=\\max{1, i - n/2}}^{\\min{N, i + n/2}} \\
              x_j^2 \\right)^\\beta}.

    ``n / 2`` rounds down, so an even ``n`` sums ``n + 1`` channels.

    See: Section 3.3 of `ImageNet Classification with Deep Convolutional
    Neural Networks <https://papers.nips.cc/paper/4824-imagenet-classification-
    with-deep-convolutional-neural-networks>`_

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable of shape
            :math:`(n_{batch}, N, ...)`; channels on axis 1.
        n (int): Normalization window width.
        k (float): Smoothing parameter.
        alpha (float): Normalizer scaling parameter.
        beta (float): Normalizer power parameter.

    Returns:
        ~chainer.Variable: Output variable, same shape and dtype as ``x``.
    """
    (y,) = LocalResponseNormalization(n, k, alpha, beta).apply((x,))
    return y
