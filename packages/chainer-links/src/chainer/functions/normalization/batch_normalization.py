import warnings

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.normalization import _moments
from chainer.utils import type_check


def _as_dtype(v, dtype):
    return v if v.dtype == dtype else primitive_ops.cast(v, dtype)


def _set_layout(node, x, gamma):
    # set_layout of the nodes that reduce over ``axis`` (canonicalised here).
    node.axis = _moments.canonical_axis(node.axis, x.ndim, gamma.ndim)
    node.layout = _moments.get_layout(x.shape, node.axis)
    return node.layout, _moments.compute_dtype(x.dtype, gamma.dtype)


def _accumulate(total, term):
    return term if total is None else total + term


# The former private name of ``layout``, still readable and writable.
_LAYOUT_ALIAS = property(
    lambda self: self.layout, lambda self, value: setattr(self, "layout", value)
)


class BatchNormalization(function_node.FunctionNode):
    """Batch normalization with batch statistics; keeps ``mean`` and ``inv_std``."""

    mean = None
    inv_std = None
    #: Reduction layout of ``x`` (a ``moments.Layout``), or None: set by the
    #: forward pass, or by a kernel override, to
    #: ``moments.get_layout(x.shape, axis)``
    #: (:mod:`chainer.functions.normalization.moments`).
    layout = None
    _layout = _LAYOUT_ALIAS

    def __init__(self, eps=2e-5, mean=None, var=None, decay=0.9, axis=None):
        self.running_mean = mean
        self.running_var = var
        self.eps = eps
        self.decay = decay
        self.axis = (axis,) if isinstance(axis, int) else axis

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "gamma", "beta"))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            gamma_type.dtype.kind == "f",
            gamma_type.dtype == beta_type.dtype,
            gamma_type.shape == beta_type.shape,
        )
        _moments.expect_channel_shapes(x_type, gamma_type, self.axis)

    def set_layout(self, x, gamma):
        """Sets ``axis`` (canonical) and ``layout`` for ``x`` and ``gamma``.

        Called by the forward pass (and by kernel overrides).

        Returns:
            tuple: ``(layout, dtype)``: ``moments.get_layout(x.shape, axis)``
            and the dtype of the statistics (``moments.compute_dtype``).
        """
        return _set_layout(self, x, gamma)

    def forward(self, inputs):
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        layout, dtype = self.set_layout(x, gamma)
        xv = layout.view(x)
        m = layout.count
        inv_m = 1.0 / max(m, 1)
        mean = layout.sum(xv if xv.dtype == dtype else xv.astype(dtype)) * inv_m
        d = xv - layout.expand(mean)  # a new array of the compute dtype
        var = layout.dot(d, d) * inv_m
        inv_std = var + self.eps
        xp.sqrt(inv_std, out=inv_std)
        xp.reciprocal(inv_std, out=inv_std)
        # y = (x - mean) * (gamma * inv_std) + beta, in place on x - mean.
        d *= layout.expand(gamma.ravel() * inv_std)
        d += layout.expand(beta.ravel())
        y = d.reshape(x.shape).astype(x.dtype, copy=False)
        self.mean = mean
        self.inv_std = inv_std
        if self.running_mean is not None and m > 0:
            # The running variance is the unbiased estimate m / (m - 1) * var.
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
        grad = BatchNormalizationGrad(self.axis, self.mean, self.inv_std, self.layout)
        return grad.apply((x, gamma, grad_outputs[0]))


class BatchNormalizationGrad(function_node.FunctionNode):
    """``(x, gamma, gy) -> (gx, ggamma, gbeta)`` of batch normalization.

    A dedicated node: two per-channel reductions and five passes over ``x``
    with the forward statistics, 5-9x faster than the same formula as
    Variable ops on (64, 256, 8, 8) float32. Built from the forward's
    reduced ``axis`` and flat per-channel ``mean`` and ``inv_std`` (and its
    cached layout, kept as ``layout`` like the forward's); its backward is
    the exact second-order gradient.
    """

    _layout = _LAYOUT_ALIAS

    def __init__(self, axis, mean, inv_std, layout=None):
        self.axis = axis
        self.mean = mean
        self.inv_std = inv_std
        self.layout = layout

    @property
    def ggamma(self):
        """Flat per-channel gradient of ``gamma`` kept for backward, or None.

        In the compute dtype of the statistics; set by the forward pass (or a
        kernel override), with :attr:`gbeta`.
        """
        return getattr(self, "_ggamma", None)

    @ggamma.setter
    def ggamma(self, value):
        self._ggamma = value

    @property
    def gbeta(self):
        """Flat per-channel gradient of ``beta`` kept for backward, or None."""
        return getattr(self, "_gbeta", None)

    @gbeta.setter
    def gbeta(self, value):
        self._gbeta = value

    def set_layout(self, x, gamma):
        """Sets ``layout`` for ``x`` unless given; returns ``(layout, dtype)``.

        ``dtype`` is that of the statistics (of ``mean``). Called by the
        forward pass (and by kernel overrides).
        """
        if self.layout is None:
            self.layout = _moments.get_layout(x.shape, self.axis)
        return self.layout, self.mean.dtype

    def forward(self, inputs):
        x, gamma, gy = inputs
        layout, dtype = self.set_layout(x, gamma)
        mean, inv_std = self.mean, self.inv_std
        gyv = layout.view(gy)
        if gyv.dtype != dtype:
            gyv = gyv.astype(dtype)
        inv_m = 1.0 / max(layout.count, 1)
        d = layout.view(x) - layout.expand(mean)
        gbeta = layout.sum(gyv)
        ggamma = layout.dot(gyv, d) * inv_std
        # gx = gamma * inv_std * (gy - (x_hat * ggamma + gbeta) / m), with
        # x_hat = d * inv_std, in place on d.
        d *= layout.expand(ggamma * (-inv_std * inv_m))
        d += gyv
        d -= layout.expand(gbeta * inv_m)
        d *= layout.expand(gamma.ravel() * inv_std)
        gx = d.reshape(x.shape).astype(x.dtype, copy=False)
        self._ggamma = ggamma
        self._gbeta = gbeta
        self.retain_inputs((0, 1, 2))
        return (
            gx,
            ggamma.reshape(gamma.shape).astype(gamma.dtype, copy=False),
            gbeta.reshape(gamma.shape).astype(gamma.dtype, copy=False),
        )

    def backward(self, indexes, grad_outputs):
        # L = <a, gx> + <G, ggamma> + <B, gbeta> for the upstream gradients
        # a, G, B; its derivatives by x, gamma and gy, with the batch
        # statistics differentiated as functions of x (per channel,
        # r = inv_std, m = count, g = gy):
        #   A0 = sum(a), A1 = sum(a x_hat), P = sum(a g) - (ggamma A1 + gbeta A0) / m
        #   dL/dgamma = r P
        #   dL/dg = gamma r (a - (x_hat A1 + A0) / m) + G x_hat + B
        #   h = -gamma r / m (g A1 + ggamma a) + G g          (dL/dx_hat)
        #   dL/dx = r (h - sum(h) / m - x_hat sum(h x_hat) / m)
        #           - gamma r^2 P x_hat / m
        x, gamma, gy = self.get_retained_inputs()
        a, big_g, big_b = grad_outputs
        layout = self.layout
        full = layout.full
        dtype = self.mean.dtype
        x_dtype, gamma_dtype, gy_dtype = x.dtype, gamma.dtype, gy.dtype
        x, gamma, g = (_as_dtype(v, dtype) for v in (x, gamma, gy))
        gshape = gamma.shape
        inv_m = 1.0 / max(layout.count, 1)
        r = self.inv_std.reshape(gshape)
        ggamma = self._ggamma.reshape(gshape)
        gbeta = self._gbeta.reshape(gshape)
        x_hat = (x - self.mean.reshape(full)) * r.reshape(full)

        def ex(v):
            return primitive_ops.reshape(v, full)

        gx = ggam = gg = h = sum_h = sum_hx = None
        if a is not None:
            gx, ggam, gg, h, sum_h, sum_hx = _terms_of_ggx(
                _as_dtype(a, dtype), x_hat, gamma, g, r, ggamma, gbeta, inv_m, layout
            )
        if big_g is not None:
            big_g = _as_dtype(big_g, dtype)
            gg = _accumulate(gg, x_hat * ex(big_g))
            h = _accumulate(h, g * ex(big_g))
            sum_h = _accumulate(sum_h, big_g * gbeta)
            sum_hx = _accumulate(sum_hx, big_g * ggamma)
        if big_b is not None:
            big_b = ex(_as_dtype(big_b, dtype))
            gg = (
                primitive_ops.broadcast_to(big_b, x.shape) if gg is None else gg + big_b
            )
        if h is not None:
            r_full = r.reshape(full)
            term = (h - ex(sum_h * inv_m) - x_hat * ex(sum_hx * inv_m)) * r_full
            gx = _accumulate(gx, term)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(None if gx is None else _as_dtype(gx, x_dtype))
            elif i == 1:
                ret.append(None if ggam is None else _as_dtype(ggam, gamma_dtype))
            else:
                ret.append(None if gg is None else _as_dtype(gg, gy_dtype))
        return tuple(ret)


def _terms_of_ggx(a, x_hat, gamma, g, r, ggamma, gbeta, inv_m, layout):
    # The parts of BatchNormalizationGrad's backward that come from the
    # upstream gradient a of gx: (dL/dx part, dL/dgamma, dL/dg, h, sum(h),
    # sum(h x_hat)); see the formulas there.
    axis, full = layout.axis, layout.full

    def red(v):
        return primitive_ops.sum(v, axis=axis)

    def ex(v):
        return primitive_ops.reshape(v, full)

    a0 = red(a)
    a1 = red(a * x_hat)
    p = red(a * g) - (a1 * ggamma + a0 * gbeta) * inv_m
    ggam = p * r
    gamma_r = gamma * r
    gg = ex(gamma_r) * (a - (x_hat * ex(a1) + ex(a0)) * inv_m)
    c = gamma_r * (-inv_m)
    h = ex(c) * (g * ex(a1) + a * ggamma.reshape(full))
    sum_h = c * (a1 * gbeta + a0 * ggamma)
    sum_hx = c * (a1 * (2 * ggamma))
    gx = x_hat * ex(ggam * gamma * r * (-inv_m))
    return gx, ggam, gg, h, sum_h, sum_hx


class FixedBatchNormalization(function_node.FunctionNode):
    """Batch normalization with given statistics (test mode)."""

    inv_std = None
    #: Reduction layout of ``x`` (a ``moments.Layout``), or None: set by
    #: :meth:`set_layout`.
    layout = None
    _full = None

    @property
    def full(self):
        """Shape that broadcasts a per-channel statistic against ``x``, or None.

        ``x.shape`` with 1 on the reduced axes (``moments.Layout.full``); set
        by the forward pass (or a kernel override) for backward.
        """
        return self._full

    @full.setter
    def full(self, value):
        self._full = value

    def __init__(self, eps=2e-5, axis=None):
        self.eps = eps
        self.axis = (axis,) if isinstance(axis, int) else axis

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "gamma", "beta", "mean", "var"))
        x_type, gamma_type, beta_type, mean_type, var_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            gamma_type.dtype.kind == "f",
            beta_type.dtype == gamma_type.dtype,
            mean_type.dtype == gamma_type.dtype,
            var_type.dtype == gamma_type.dtype,
            beta_type.shape == gamma_type.shape,
            mean_type.shape == gamma_type.shape,
            var_type.shape == gamma_type.shape,
        )
        _moments.expect_channel_shapes(x_type, gamma_type, self.axis)

    def set_layout(self, x, gamma):
        """Sets ``axis`` (canonical), ``layout`` and ``full`` for ``x`` and ``gamma``.

        Called by the forward pass (and by kernel overrides).

        Returns:
            tuple: ``(layout, dtype)``: ``moments.get_layout(x.shape, axis)``
            and the dtype of the statistics (``moments.compute_dtype``).
        """
        layout, dtype = _set_layout(self, x, gamma)
        self._full = layout.full
        return layout, dtype

    def forward(self, inputs):
        x, gamma, beta, mean, var = inputs
        xp = backend.get_array_module(x)
        layout, dtype = self.set_layout(x, gamma)
        inv_std = var.ravel().astype(dtype)
        inv_std += self.eps
        xp.sqrt(inv_std, out=inv_std)
        xp.reciprocal(inv_std, out=inv_std)
        scale = gamma.ravel() * inv_std
        shift = beta.ravel() - mean.ravel() * scale
        y = layout.view(x) * layout.expand(scale)
        if y.dtype != dtype:
            y = y.astype(dtype)
        y += layout.expand(shift)
        self.inv_std = inv_std
        self.retain_inputs((0, 1, 3, 4))
        return (y.reshape(x.shape).astype(x.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        x, gamma, mean, var = self.get_retained_inputs()
        (gy,) = grad_outputs
        dtype = self.inv_std.dtype
        x_dtype, p_dtype = x.dtype, gamma.dtype
        x, gamma, mean, var, gy = (
            _as_dtype(v, dtype) for v in (x, gamma, mean, var, gy)
        )
        full, axis = self._full, self.axis
        # Differentiable in var too, for the gradient of var and double backprop.
        inv_std = (var + self.eps) ** -0.5
        ret = {}
        if 0 in indexes:
            ret[0] = _as_dtype(
                gy * primitive_ops.reshape(gamma * inv_std, full), x_dtype
            )
        if 1 in indexes or 4 in indexes:
            x_hat = (x - primitive_ops.reshape(mean, full)) * primitive_ops.reshape(
                inv_std, full
            )
            gxhat = primitive_ops.sum(gy * x_hat, axis=axis)
            ret[1] = gxhat
            ret[4] = gxhat * gamma * inv_std * inv_std * -0.5
        if 2 in indexes or 3 in indexes:
            gbeta = primitive_ops.sum(gy, axis=axis)
            ret[2] = gbeta
            ret[3] = -gbeta * gamma * inv_std
        return tuple(ret[i] if i == 0 else _as_dtype(ret[i], p_dtype) for i in indexes)


def _warn_single_sample(shape, axis):
    if not all(0 <= a < len(shape) and shape[a] == 1 for a in axis):
        return
    if 0 in axis:
        msg = (
            "A batch with no more than one sample has been given to "
            "F.batch_normalization; it always outputs zeros for such a batch "
            "(common causes: evaluating with chainer.config.train=True, or a "
            "last batch of size one from a non-repeating iterator)."
        )
    else:
        msg = (
            "F.batch_normalization received a batch whose axes used for the "
            "statistics all have length one; it always outputs zeros for it."
        )
    warnings.warn(msg, UserWarning, stacklevel=3)


def batch_normalization(x, gamma, beta, **kwargs):
    """Batch normalization function.

    It takes the input variable ``x`` and two parameter variables ``gamma``
    and ``beta``. The parameter variables must both have the same
    dimensionality, which is referred to as the channel shape. This channel
    shape corresponds to the dimensions in the input which are not averaged
    over. Since the first dimension of the input corresponds to the batch
    size, the second dimension of ``x`` will correspond to the first
    dimension of the channel shape, and so on. The total effective "batch
    size" will then be considered to be the product of all dimensions in
    ``x`` except for the channel dimensions.

    .. math::
        y = \\gamma \\frac{x - \\mu}{\\sqrt{\\sigma^2 + \\epsilon}} + \\beta

    where :math:`\\mu` and :math:`\\sigma^2` are the mean and (biased)
    variance over the reduced axes. A float16 input is normalized in float32
    and the output cast back.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable.
        gamma (~chainer.Variable or :ref:`ndarray`): Scaling parameter of
            normalized data, shaped like ``x`` without the reduced axes.
        beta (~chainer.Variable or :ref:`ndarray`): Shifting parameter of
            scaled normalized data, shaped like ``gamma``.
        eps (float): Epsilon value for numerical stability (keyword only,
            default ``2e-5``).
        running_mean (:ref:`ndarray`): Running average of the mean, updated
            in place (``running_mean = decay * running_mean + (1 - decay) *
            mean``) if given. Keyword only.
        running_var (:ref:`ndarray`): Running average of the unbiased
            variance, updated in place like ``running_mean``. Keyword only.
        decay (float): Decay rate of the moving averages (keyword only,
            default ``0.9``).
        axis (int, tuple of int or None): Axes over which the statistics are
            computed. By default all axes except the channel axes
            ``1 .. gamma.ndim``.

    Returns:
        ~chainer.Variable: Normalized output, same shape and dtype as ``x``.

    .. seealso:: :class:`~chainer.links.BatchNormalization`

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[0, 2], [2, 6]], np.float32)
        >>> gamma = np.ones(2, np.float32)
        >>> beta = np.zeros(2, np.float32)
        >>> F.batch_normalization(x, gamma, beta).array.round(3)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
    """
    eps = kwargs.pop("eps", 2e-5)
    running_mean = kwargs.pop("running_mean", None)
    running_var = kwargs.pop("running_var", None)
    decay = kwargs.pop("decay", 0.9)
    axis = kwargs.pop("axis", None)
    if "train" in kwargs:
        raise ValueError(
            "train argument is not supported anymore. "
            "Use chainer.using_config('train', ...)"
        )
    if kwargs:
        raise TypeError(
            "batch_normalization() got unexpected keyword argument(s) "
            + ", ".join(repr(k) for k in sorted(kwargs))
        )
    if (running_mean is None) != (running_var is None):
        raise ValueError(
            "running_mean and running_var must be given together (or neither)"
        )
    if running_mean is not None:
        _moments.check_running_shapes(gamma.shape, running_mean, running_var)
    axis = _moments.canonical_axis(axis, x.ndim, gamma.ndim)
    _warn_single_sample(x.shape, axis)
    node = BatchNormalization(eps, running_mean, running_var, decay, axis)
    (y,) = node.apply((x, gamma, beta))
    return y


def fixed_batch_normalization(x, gamma, beta, mean, var, eps=2e-05, axis=None):
    """Batch normalization function with fixed statistics.

    This is a variant of batch normalization, where the mean and variance
    statistics are given by the caller as fixed variables. This is used in
    testing mode of the batch normalization layer, where batch statistics
    cannot be used for prediction consistency.

    .. math::
        y = \\gamma \\frac{x - \\mathrm{mean}}{\\sqrt{\\mathrm{var} + \\epsilon}}
        + \\beta

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable.
        gamma (~chainer.Variable or :ref:`ndarray`): Scaling parameter of
            normalized data, shaped like ``x`` without the reduced axes.
        beta (~chainer.Variable or :ref:`ndarray`): Shifting parameter of
            scaled normalized data; same shape and dtype as ``gamma``.
        mean (~chainer.Variable or :ref:`ndarray`): Shifting parameter of
            input; same shape and dtype as ``gamma``.
        var (~chainer.Variable or :ref:`ndarray`): Square of scaling
            parameter of input; same shape and dtype as ``gamma``.
        eps (float): Epsilon value for numerical stability.
        axis (int, tuple of int or None): Axes over which the statistics were
            computed. By default all axes except ``1 .. gamma.ndim``.

    Returns:
        ~chainer.Variable: Normalized output, same shape and dtype as ``x``.

    .. seealso::
       :func:`~chainer.functions.batch_normalization`,
       :class:`~chainer.links.BatchNormalization`
    """
    (y,) = FixedBatchNormalization(eps, axis).apply((x, gamma, beta, mean, var))
    return y
