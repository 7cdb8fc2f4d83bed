import warnings

from chainer import backend
from chainer import function_node
from chainer.functions.normalization import _moments
from chainer.functions.normalization import batch_normalization
from chainer.utils import type_check


class BatchRenormalizationFunction(function_node.FunctionNode):
    """Batch renormalization; ``r`` and ``d`` are constants of the gradient."""

    mean = None
    inv_std = None
    r = None
    d = None

    def __init__(
        self,
        eps=2e-5,
        mean=None,
        var=None,
        decay=0.9,
        rmax=1,
        dmax=0,
        update_statistics=True,
    ):
        self.running_mean = mean
        self.running_var = var
        self.eps = eps
        self.decay = decay
        self.rmax = rmax
        self.dmax = dmax
        self.update_statistics = update_statistics

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "gamma", "beta"))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            gamma_type.dtype.kind == "f",
            beta_type.dtype == gamma_type.dtype,
            beta_type.shape == gamma_type.shape,
        )
        _moments.expect_channel_shapes(x_type, gamma_type, None)

    def forward(self, inputs):
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        self.axis = _moments.default_axis(x.ndim, gamma.ndim)
        layout = self.layout = _moments.get_layout(x.shape, self.axis)
        dtype = _moments.compute_dtype(x.dtype, gamma.dtype)
        m = layout.count
        inv_m = 1.0 / max(m, 1)
        xv = layout.view(x)
        mean = layout.sum(xv if xv.dtype == dtype else xv.astype(dtype)) * inv_m
        centered = xv - layout.expand(mean)
        var = layout.dot(centered, centered) * inv_m
        inv_std = var + self.eps
        xp.sqrt(inv_std, out=inv_std)
        xp.reciprocal(inv_std, out=inv_std)
        running_mean = self.running_mean.ravel().astype(dtype)
        running_sigma = self.running_var.ravel().astype(dtype)
        running_sigma += self.eps
        xp.sqrt(running_sigma, out=running_sigma)
        rmax = self.rmax
        r = xp.clip(1 / (inv_std * running_sigma), 1 / rmax, rmax)
        d = xp.clip((mean - running_mean) / running_sigma, -self.dmax, self.dmax)
        # y = gamma * (x_hat * r + d) + beta with x_hat = (x - mean) * inv_std.
        gamma_flat = gamma.ravel()
        centered *= layout.expand(gamma_flat * (r * inv_std))
        centered += layout.expand(beta.ravel() + gamma_flat * d)
        y = centered.reshape(x.shape).astype(x.dtype, copy=False)
        self.mean, self.inv_std, self.r, self.d = mean, inv_std, r, d
        if self.update_statistics and m > 0:
            decay = self.decay
            adjust = m / max(m - 1.0, 1.0)
            self.running_mean *= decay
            self.running_mean += ((1 - decay) * mean).reshape(gamma.shape)
            self.running_var *= decay
            self.running_var += ((1 - decay) * adjust * var).reshape(gamma.shape)
        self.retain_inputs((0, 1))
        return (y,)

    def backward(self, indexes, grad_outputs):
        x, gamma = self.get_retained_inputs()
        (gy,) = grad_outputs
        r = self.r.reshape(gamma.shape).astype(gamma.dtype, copy=False)
        d = self.d.reshape(gamma.shape).astype(gamma.dtype, copy=False)
        grad = batch_normalization.BatchNormalizationGrad(
            self.axis, self.mean, self.inv_std, self.layout
        )
        gx, ggamma_hat, gbeta = grad.apply((x, gamma * r, gy))
        # d(gamma * (x_hat * r + d)) / dgamma = x_hat * r + d.
        return gx, ggamma_hat * r + gbeta * d, gbeta


def batch_renormalization(
    x,
    gamma,
    beta,
    rmax,
    dmax,
    eps=2e-05,
    running_mean=None,
    running_var=None,
    decay=0.9,
    update_statistics=False,
):
    """Batch renormalization function.

    This is an extension of batch normalization, which ensures that the
    training and inference models generate the same outputs that depend on
    individual examples rather than the entire minibatch. With the batch
    mean :math:`\\mu`, standard deviation :math:`\\sigma = \\sqrt{\\mathrm{var}
    + \\epsilon}` and the running statistics :math:`\\mu_r, \\sigma_r`:

    .. math::
        r = \\mathrm{clip}(\\sigma / \\sigma_r, 1 / r_{max}, r_{max}), \\quad
        d = \\mathrm{clip}((\\mu - \\mu_r) / \\sigma_r, -d_{max}, d_{max}),

        y = \\gamma \\left(\\frac{x - \\mu}{\\sigma} r + d\\right) + \\beta.

    ``r`` and ``d`` are constants for the gradient. The channel axes are
    ``1 .. gamma.ndim``; all others are reduced.

    See: `Batch Renormalization: Towards Reducing Minibatch Dependence in
    Batch-Normalized Models <https://arxiv.org/abs/1702.03275>`_

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable.
        gamma (~chainer.Variable or :ref:`ndarray`): Scaling parameter,
            shaped like ``x.shape[1:1 + gamma.ndim]``.
        beta (~chainer.Variable or :ref:`ndarray`): Shifting parameter, same
            shape and dtype as ``gamma``.
        rmax (float): Upper bound of ``r`` (lower bound ``1 / rmax``).
        dmax (float): Bound of ``|d|``.
        eps (float): Epsilon value for numerical stability.
        running_mean (:ref:`ndarray`): Running average of the mean
            (required).
        running_var (:ref:`ndarray`): Running average of the variance
            (required).
        decay (float): Decay rate of the moving averages.
        update_statistics (bool): If True, ``running_mean`` and
            ``running_var`` are updated in place as in
            :func:`~chainer.functions.batch_normalization`.

    Returns:
        ~chainer.Variable: Output, same shape and dtype as ``x``.
    """
    if running_mean is None:
        raise TypeError("running_mean is required")
    if running_var is None:
        raise TypeError("running_var is required")
    _moments.check_running_shapes(gamma.shape, running_mean, running_var)
    node = BatchRenormalizationFunction(
        eps, running_mean, running_var, decay, rmax, dmax, update_statistics
    )
    (y,) = node.apply((x, gamma, beta))
    return y


def fixed_batch_renormalization(x, gamma, beta, mean, var, eps=2e-05):
    """Batch renormalization in test mode (deprecated).

    Identical to :func:`~chainer.functions.fixed_batch_normalization`; it
    emits a :class:`DeprecationWarning`.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable.
        gamma (~chainer.Variable or :ref:`ndarray`): Scaling parameter.
        beta (~chainer.Variable or :ref:`ndarray`): Shifting parameter.
        mean (~chainer.Variable or :ref:`ndarray`): Mean to subtract.
        var (~chainer.Variable or :ref:`ndarray`): Variance to divide by.
        eps (float): Epsilon value for numerical stability.

    Returns:
        ~chainer.Variable: Output, same shape and dtype as ``x``.
    """
    warnings.warn(
        "fixed_batch_renormalization is deprecated. "
        "Use fixed_batch_normalization instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return batch_normalization.fixed_batch_normalization(x, gamma, beta, mean, var, eps)
