import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _group_axes(ndim):
    # (n, c, s1, s2, ...) -> (c, n, s1, s2, ...); the permutation is its own
    # inverse.
    return (1, 0, *range(2, ndim))


def _group(x, groups):
    """``(n, c, ...)`` array -> ``(groups, c // groups, n * prod(...))``."""
    c = x.shape[1]
    return x.transpose(_group_axes(x.ndim)).reshape(groups, c // groups, -1)


def _ungroup(y, shape):
    """Inverse of :func:`_group` for an output of ``shape``."""
    perm = _group_axes(len(shape))
    y = y.reshape(tuple(shape[i] for i in perm))
    return backend.get_array_module(y).ascontiguousarray(y.transpose(perm))


def _group_var(x, groups):
    perm = _group_axes(x.ndim)
    return primitive_ops.reshape(
        primitive_ops.transpose(x, perm), (groups, x.shape[1] // groups, -1)
    )


def _ungroup_var(y, shape):
    perm = _group_axes(len(shape))
    return primitive_ops.transpose(
        primitive_ops.reshape(y, tuple(shape[i] for i in perm)), perm
    )


def _swap(a):
    return primitive_ops.transpose(a, (0, 2, 1))


def _compute_dtype(dtype):
    return dtype if dtype.itemsize >= 4 else numpy.dtype(numpy.float32)


def _as_dtype(v, dtype):
    return v if v.dtype == dtype else primitive_ops.cast(v, dtype)


class _Lyapunov(function_node.FunctionNode):
    """Solves ``G P + P G = R`` for ``G``, with ``P = V diag(p) V^T`` (batched).

    ``P`` is an input so that gradients reach it; its eigendecomposition
    ``(V, p)`` is given.
    """

    def __init__(self, vectors, values):
        self.vectors = vectors
        self.values = values

    def forward(self, inputs):
        _, rhs = inputs
        v, p = self.vectors, self.values
        vt = v.transpose(0, 2, 1)
        g = vt @ rhs @ v
        g /= p[:, :, None] + p[:, None, :]
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return (v @ g @ vt,)

    def backward(self, indexes, grad_outputs):
        # dG = Lyap(dR - G dP - dP G); the solve is self-adjoint.
        (p_var,) = self.get_retained_inputs()
        (g,) = self.get_retained_outputs()
        (h,) = _Lyapunov(self.vectors, self.values).apply((p_var, grad_outputs[0]))
        ret = []
        if 0 in indexes:
            ret.append(
                -(primitive_ops.matmul(_swap(g), h) + primitive_ops.matmul(h, _swap(g)))
            )
        if 1 in indexes:
            ret.append(h)
        return tuple(ret)


class _InverseSqrt(function_node.FunctionNode):
    """``P = S^(-1/2)`` of symmetric positive definite matrices ``S`` (batched)."""

    def forward(self, inputs):
        (s,) = inputs
        xp = backend.get_array_module(s)
        w, v = xp.linalg.eigh(s)
        p = w**-0.5
        self.vectors, self.values = v, p
        self.retain_outputs((0,))
        return ((v * p[:, None, :]) @ v.transpose(0, 2, 1),)

    def backward(self, indexes, grad_outputs):
        # P^2 = S^-1 gives dP P + P dP = -P^2 dS P^2, so
        # gS = -P^2 Lyap(gP) P^2 (P symmetric, the solve self-adjoint).
        (p,) = self.get_retained_outputs()
        (h,) = _Lyapunov(self.vectors, self.values).apply((p, grad_outputs[0]))
        p2 = primitive_ops.matmul(p, p)
        return (-primitive_ops.matmul(primitive_ops.matmul(p2, h), p2),)


def _check_x(x_type, groups):
    type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= 2)
    groups = type_check.make_variable(groups, "groups")
    type_check.expect(x_type.shape[1] % groups == 0)


class DecorrelatedBatchNormalization(function_node.FunctionNode):
    """ZCA-whitening batch normalization; the backward rebuilds it differentiably."""

    mean = None
    projection = None

    def __init__(self, groups=16, eps=2e-5, mean=None, projection=None, decay=0.9):
        self.groups = groups
        self.eps = eps
        self.running_mean = mean
        self.running_projection = projection
        self.decay = decay

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        _check_x(in_types[0], self.groups)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        dtype = _compute_dtype(x.dtype)
        xg = _group(x, self.groups).astype(dtype, copy=False)
        m = xg.shape[2]
        mean = xg.mean(axis=2, keepdims=True)
        xc = xg - mean
        cov = xc @ xc.transpose(0, 2, 1)
        cov /= max(m, 1)
        cov += self.eps * xp.eye(cov.shape[1], dtype=dtype)
        w, v = xp.linalg.eigh(cov)
        projection = (v * (w**-0.5)[:, None, :]) @ v.transpose(0, 2, 1)
        y = _ungroup(projection @ xc, x.shape).astype(x.dtype, copy=False)
        self.mean = mean[:, :, 0]
        self.projection = projection
        decay = self.decay
        if self.running_mean is not None:
            self.running_mean *= decay
            self.running_mean += (1 - decay) * self.mean
        if self.running_projection is not None:
            adjust = m / max(m - 1.0, 1.0)
            self.running_projection *= decay
            self.running_projection += (1 - decay) * adjust * projection
        self.retain_inputs((0,))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        xp = backend.get_array_module(x.array)
        dtype = _compute_dtype(x.dtype)
        xg = _as_dtype(_group_var(x, self.groups), dtype)
        gyg = _as_dtype(_group_var(gy, self.groups), dtype)
        m = xg.shape[2]
        inv_m = 1.0 / max(m, 1)
        xc = xg - primitive_ops.sum(xg, axis=2, keepdims=True) * inv_m
        # The (c, c) matrices are handled in float64: P^2 amplifies rounding
        # errors by the square of the condition number of the covariance,
        # which is large when it is nearly singular (fewer samples than
        # channels), so float32 loses the gradient there.
        wide = numpy.dtype(numpy.float64)
        cov = _as_dtype(primitive_ops.matmul(xc, _swap(xc)), wide) * inv_m
        cov = cov + self.eps * xp.eye(cov.shape[1], dtype=wide)
        node = _InverseSqrt()
        (p,) = node.apply((cov,))
        # y = P xc: through xc directly and through P(S(xc)).
        gp = _as_dtype(primitive_ops.matmul(gyg, _swap(xc)), wide)
        (h,) = _Lyapunov(node.vectors, node.values).apply((p, gp))
        p2 = primitive_ops.matmul(p, p)
        gs = -primitive_ops.matmul(primitive_ops.matmul(p2, h), p2)
        gs = _as_dtype(gs + _swap(gs), dtype)
        p = _as_dtype(p, dtype)
        gxc = primitive_ops.matmul(_swap(p), gyg) + primitive_ops.matmul(gs, xc) * inv_m
        gxg = gxc - primitive_ops.sum(gxc, axis=2, keepdims=True) * inv_m
        return (_as_dtype(_ungroup_var(gxg, x.shape), x.dtype),)


class FixedDecorrelatedBatchNormalization(function_node.FunctionNode):
    """Decorrelated batch normalization with given statistics (test mode)."""

    def __init__(self, groups=16):
        self.groups = groups

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "mean", "projection"))
        x_type, mean_type, proj_type = in_types
        _check_x(x_type, self.groups)
        groups = type_check.make_variable(self.groups, "groups")
        type_check.expect(
            mean_type.dtype.kind == "f",
            proj_type.dtype == mean_type.dtype,
            mean_type.ndim == 2,
            proj_type.ndim == 3,
            mean_type.shape[0] == groups,
            mean_type.shape[1] * groups == x_type.shape[1],
            proj_type.shape[0] == groups,
            proj_type.shape[1] == mean_type.shape[1],
            proj_type.shape[2] == mean_type.shape[1],
        )

    def forward(self, inputs):
        x, mean, projection = inputs
        dtype = _compute_dtype(numpy.result_type(x.dtype, mean.dtype))
        xc = _group(x, self.groups).astype(dtype, copy=False) - mean[:, :, None]
        y = projection.astype(dtype, copy=False) @ xc
        self.retain_inputs((0, 1, 2))
        return (_ungroup(y, x.shape).astype(x.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        x, mean, projection = self.get_retained_inputs()
        (gy,) = grad_outputs
        dtype = _compute_dtype(numpy.result_type(x.dtype, mean.dtype))
        gyg = _as_dtype(_group_var(gy, self.groups), dtype)
        p = _as_dtype(projection, dtype)
        ret = []
        if 0 in indexes or 1 in indexes:
            gxc = primitive_ops.matmul(_swap(p), gyg)
            if 0 in indexes:
                ret.append(_as_dtype(_ungroup_var(gxc, x.shape), x.dtype))
            if 1 in indexes:
                ret.append(_as_dtype(-primitive_ops.sum(gxc, axis=2), mean.dtype))
        if 2 in indexes:
            xg = _as_dtype(_group_var(x, self.groups), dtype)
            xc = xg - primitive_ops.reshape(_as_dtype(mean, dtype), (*mean.shape, 1))
            ret.append(
                _as_dtype(primitive_ops.matmul(gyg, _swap(xc)), projection.dtype)
            )
        return tuple(ret)


def decorrelated_batch_normalization(x, **kwargs):
    """Decorrelated batch normalization function.

    It takes the input variable ``x`` and normalizes it using batch
    statistics to make the output zero-mean and decorrelated (ZCA
    whitening), independently within each of ``groups`` groups of channels:

    .. math::
        y = \\Sigma^{-1/2} (x - \\mu), \\quad
        \\Sigma = \\frac{1}{m} (x - \\mu)(x - \\mu)^T + \\epsilon I

    over the ``m`` samples (batch and spatial positions) of each group.

    See: `Decorrelated Batch Normalization <https://arxiv.org/abs/1804.08450>`_

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input of shape
            :math:`(n, c, ...)`; ``c`` must be divisible by ``groups``.
        groups (int): Number of groups of channels (keyword only, default
            16).
        eps (float): Epsilon added to the covariance (keyword only, default
            ``2e-5``).
        running_mean (:ref:`ndarray`): Running average of the mean, of shape
            ``(groups, c // groups)``, updated in place if given (keyword
            only).
        running_projection (:ref:`ndarray`): Running average of the whitening
            matrix, of shape ``(groups, c // groups, c // groups)``, updated
            in place (with the factor ``m / (m - 1)``) if given (keyword
            only).
        decay (float): Decay rate of the moving averages (keyword only,
            default 0.9).

    Returns:
        ~chainer.Variable: Output, same shape and dtype as ``x``.

    .. seealso:: :class:`~chainer.links.DecorrelatedBatchNormalization`
    """
    groups = kwargs.pop("groups", 16)
    eps = kwargs.pop("eps", 2e-5)
    running_mean = kwargs.pop("running_mean", None)
    running_projection = kwargs.pop("running_projection", None)
    decay = kwargs.pop("decay", 0.9)
    if kwargs:
        raise TypeError(
            "decorrelated_batch_normalization() got unexpected keyword "
            "argument(s) " + ", ".join(repr(k) for k in sorted(kwargs))
        )
    node = DecorrelatedBatchNormalization(
        groups, eps, running_mean, running_projection, decay
    )
    (y,) = node.apply((x,))
    return y


def fixed_decorrelated_batch_normalization(x, mean, projection, groups=16):
    """Decorrelated batch normalization function with fixed statistics.

    This is a variant of decorrelated batch normalization, where the mean and
    projection statistics are given by the caller as fixed variables; it is
    used in testing mode of the decorrelated batch normalization layer.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input of shape
            :math:`(n, c, ...)`.
        mean (~chainer.Variable or :ref:`ndarray`): Mean of shape
            ``(groups, c // groups)``.
        projection (~chainer.Variable or :ref:`ndarray`): Whitening matrices
            of shape ``(groups, c // groups, c // groups)``.
        groups (int): Number of groups of channels.

    Returns:
        ~chainer.Variable: Output, same shape and dtype as ``x``.

    .. seealso::
       :func:`~chainer.functions.decorrelated_batch_normalization`,
       :class:`~chainer.links.DecorrelatedBatchNormalization`
    """
    node = FixedDecorrelatedBatchNormalization(groups)
    (y,) = node.apply((x, mean, projection))
    return y
