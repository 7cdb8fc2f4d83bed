import math

import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.normalization import batch_normalization
from chainer.utils import type_check


class GroupNormalization(function_node.FunctionNode):
    """Group normalization: rows ``(n * groups, -1)`` standardized, then scaled.

    Standardizes with batch normalization's nodes (over axis 1 of the rows),
    so double backprop is exact.
    """

    def __init__(self, groups, eps=1e-5):
        self.groups = groups
        self.eps = eps

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "gamma", "beta"))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim >= 2,
            gamma_type.dtype.kind == "f",
            gamma_type.ndim == 1,
            beta_type.dtype == gamma_type.dtype,
            beta_type.shape == gamma_type.shape,
        )
        groups = type_check.make_variable(self.groups, "groups")
        type_check.expect(
            x_type.shape[1] == gamma_type.shape[0],
            x_type.shape[1] % groups == 0,
        )

    def _rows(self, shape):
        per_row = shape[1] // self.groups * math.prod(shape[2:])
        return (shape[0] * self.groups, per_row)

    def _affine_shape(self, x):
        return (1, x.shape[1]) + (1,) * (x.ndim - 2)

    def forward(self, inputs):
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        rows = self._rows(x.shape)
        dtype = numpy.promote_types(gamma.dtype, numpy.float32)
        ones = xp.ones(rows[0], dtype)
        zeros = xp.zeros(rows[0], dtype)
        bn = batch_normalization.BatchNormalization(self.eps, axis=(1,))
        (x_hat,) = bn.forward((x.reshape(rows), ones, zeros))
        shape = self._affine_shape(x)
        y = x_hat.reshape(x.shape) * gamma.reshape(shape)
        y += beta.reshape(shape)
        self.retain_inputs((0, 1))
        return (y.astype(x.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        x, gamma = self.get_retained_inputs()
        (gy,) = grad_outputs
        xp = backend.get_array_module(x.array)
        rows = self._rows(x.shape)
        dtype = numpy.promote_types(gamma.dtype, numpy.float32)
        ones = xp.ones(rows[0], dtype)
        zeros = xp.zeros(rows[0], dtype)
        x_rows = primitive_ops.reshape(x, rows)
        if gy.dtype != gamma.dtype:
            gy = primitive_ops.cast(gy, gamma.dtype)
        axis = (0, *range(2, x.ndim))
        gx = ggamma = None
        if 0 in indexes or 1 in indexes:
            # Standardized rows as a function of x (recomputed: 4 passes), so
            # the gradient of gamma stays differentiable in x.
            bn = batch_normalization.BatchNormalization(self.eps, axis=(1,))
            (x_hat,) = bn.apply((x_rows, ones, zeros))
            x_hat = primitive_ops.reshape(x_hat, x.shape)
            if x_hat.dtype != gamma.dtype:
                x_hat = primitive_ops.cast(x_hat, gamma.dtype)
            ggamma = primitive_ops.sum(gy * x_hat, axis=axis)
        if 0 in indexes:
            gx_hat = gy * primitive_ops.reshape(gamma, self._affine_shape(x))
            grad = batch_normalization.BatchNormalizationGrad((1,), bn.mean, bn.inv_std)
            (gx, _, _) = grad.apply((x_rows, ones, primitive_ops.reshape(gx_hat, rows)))
            gx = primitive_ops.reshape(gx, x.shape)
            if gx.dtype != x.dtype:
                gx = primitive_ops.cast(gx, x.dtype)
        ret = {0: gx, 1: ggamma}
        if 2 in indexes:
            ret[2] = primitive_ops.sum(gy, axis=axis)
        return tuple(ret[i] for i in indexes)


def group_normalization(x, groups, gamma, beta, eps=1e-05):
    """Group normalization function.

    This function implements a "group normalization" which divides the
    channels into groups and computes within each group the mean and
    variance, then normalizes by these statistics, scales and shifts them.

    .. math::
        y = \\gamma_c \\frac{x - \\mu_{n,g}}{\\sqrt{\\sigma^2_{n,g} + \\epsilon}}
        + \\beta_c

    where :math:`\\mu_{n,g}` and :math:`\\sigma^2_{n,g}` are the mean and
    variance of the elements of sample :math:`n` in channel group :math:`g`.

    See: `Group Normalization <https://arxiv.org/abs/1803.08494>`_

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Batch tensors of shape
            :math:`(n, c, ...)`: first the minibatch, then the channels,
            optionally followed by spatial dimensions.
        groups (int): The number of channel groups. This value must be a
            divisor of the number of channels.
        gamma (~chainer.Variable or :ref:`ndarray`): Scaling parameter of
            shape :math:`(c,)`.
        beta (~chainer.Variable or :ref:`ndarray`): Shifting parameter of
            shape :math:`(c,)`.
        eps (float): Epsilon value for numerical stability of normalization.

    Returns:
        ~chainer.Variable: Output, same shape and dtype as ``x``.
    """
    if isinstance(groups, bool) or not isinstance(groups, (int, numpy.integer)):
        raise TypeError(f"Argument: 'groups' type must be (int), got {groups!r}")
    if groups <= 0:
        raise ValueError(f"'groups' must be positive, got {groups}")
    if len(x.shape) >= 2 and x.shape[1] % groups:
        raise ValueError(
            f"The number of channels {x.shape[1]} is not divisible by "
            f"'groups' argument {groups}."
        )
    (y,) = GroupNormalization(int(groups), eps).apply((x, gamma, beta))
    return y
