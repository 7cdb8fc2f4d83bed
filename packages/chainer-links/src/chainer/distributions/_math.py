"""Differentiable elementwise math the distributions are written with.

Each node's backward is built from differentiable operations on Variables, so
log-densities, entropies and KL divergences support double backprop.
"""

import math

import numpy

from chainer import _ops
from chainer import backend
from chainer import function_node
from chainer import variable
from chainer.utils import type_check

LOG_2PI = math.log(2 * math.pi)
SQRT_2PI = math.sqrt(2 * math.pi)
EULER = 0.57721566490153286061

_Variable = variable.Variable

# Core primitives, under the names chainer.functions gives them.
log = _ops.log
matmul = _ops.matmul
absolute = _ops.absolute
broadcast_to = _ops.broadcast_to
reshape = _ops.reshape
transpose = _ops.transpose
get_item = _ops.get_item
sum = _ops.sum


def _check_float(in_types):
    type_check.expect(in_types.size() == 1)
    (x_type,) = in_types
    type_check.expect(x_type.dtype.kind == "f")


class _Exp(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        return (backend.get_array_module(x).exp(x),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * y,)


class _Log1p(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).log1p(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (x + 1.0),)


class _Expm1(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        return (backend.get_array_module(x).expm1(x),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * (y + 1.0),)


class _Softplus(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        # max(x, 0) + log1p(exp(-|x|)) cannot overflow; log1p(exp(x)) can.
        return (xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x))),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * sigmoid(x),)


class _Sigmoid(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self.retain_outputs((0,))
        # The tanh form saturates cleanly at both ends.
        half = x.dtype.type(0.5)
        return (xp.tanh(x * half) * half + half,)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * y * (1.0 - y),)


class _Arctan(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (backend.get_array_module(x).arctan(x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (x * x + 1.0),)


class _Tan(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        return (backend.get_array_module(x).tan(x),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * (y * y + 1.0),)


def _scipy_special():
    try:
        from scipy import special
    except ImportError:
        raise ImportError(
            "this method of chainer.distributions needs SciPy's special "
            "functions: pip install chainer-links[special]"
        ) from None
    return special


def _special(name, x, *args):
    special = _scipy_special()
    fn = getattr(special, name)
    if type(x) is numpy.ndarray:
        y = fn(*args, x)
    else:
        # SciPy works on host memory: arrays of other backends make a round trip.
        device = backend.get_device_from_array(x)
        y = device.send(fn(*args, backend.CpuDevice().send(x)))
    return y.astype(x.dtype, copy=False)


class _Lgamma(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (_special("gammaln", x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * digamma(x),)


class _Polygamma(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def __init__(self, n):
        self.n = n

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        if self.n == 0:
            return (_special("psi", x),)
        return (_special("polygamma", x, self.n),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * polygamma(self.n + 1, x),)


class _Ndtr(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (_special("ndtr", x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * exp(x * x * -0.5) * (1.0 / SQRT_2PI),)


class _LogNdtr(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return (_special("log_ndtr", x),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        # pdf/cdf in log space stays finite far in the left tail.
        return (grad_outputs[0] * exp(x * x * -0.5 - y - 0.5 * LOG_2PI),)


class _Ndtri(function_node.FunctionNode):
    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        return (_special("ndtri", x),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * exp(y * y * 0.5) * SQRT_2PI,)


class _Where(function_node.FunctionNode):
    def __init__(self, condition):
        self.condition = condition

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        x_type, y_type = in_types
        type_check.expect(x_type.dtype == y_type.dtype, x_type.shape == y_type.shape)

    def forward(self, inputs):
        x, y = inputs
        xp = backend.get_array_module(x)
        return (xp.where(self.condition, x, y),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        zeros = backend.get_array_module(gy).zeros(gy.shape, gy.dtype)
        ret = []
        if 0 in indexes:
            ret.append(_Where(self.condition).apply((gy, zeros))[0])
        if 1 in indexes:
            ret.append(_Where(self.condition).apply((zeros, gy))[0])
        return tuple(ret)


class _LogSoftmax(function_node.FunctionNode):
    """Log-softmax over the last axis."""

    check_type_forward = staticmethod(_check_float)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        z = x - x.max(axis=-1, keepdims=True)
        self.retain_outputs((0,))
        return (z - xp.log(xp.exp(z).sum(axis=-1, keepdims=True)),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        return (gy - exp(y) * sum(gy, axis=-1, keepdims=True),)


class _TriangularInv(function_node.FunctionNode):
    """Inverse of the lower triangle of a (batch of) square matrices."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (x_type,) = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim >= 2,
            x_type.shape[-1] == x_type.shape[-2],
        )

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        # LAPACK has no float16 routines.
        work = x.astype(numpy.float32) if x.dtype == numpy.float16 else x
        y = xp.tril(xp.linalg.inv(xp.tril(work)))
        self.retain_outputs((0,))
        return (y.astype(x.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        xp = backend.get_array_module(y)
        y_t = swap_last(y)
        gx = -matmul(matmul(y_t, gy), y_t)
        d = y.shape[-1]
        mask = xp.broadcast_to(xp.tril(xp.ones((d, d), dtype=bool)), gx.shape)
        return (where(mask, gx, 0.0),)


def exp(x):
    """Elementwise exponential."""
    return _Exp().apply((x,))[0]


def log1p(x):
    """Elementwise ``log(1 + x)``."""
    return _Log1p().apply((x,))[0]


def expm1(x):
    """Elementwise ``exp(x) - 1``."""
    return _Expm1().apply((x,))[0]


def softplus(x):
    """Elementwise ``log(1 + exp(x))``."""
    return _Softplus().apply((x,))[0]


def sigmoid(x):
    """Elementwise logistic sigmoid."""
    return _Sigmoid().apply((x,))[0]


def arctan(x):
    """Elementwise inverse tangent."""
    return _Arctan().apply((x,))[0]


def tan(x):
    """Elementwise tangent."""
    return _Tan().apply((x,))[0]


def lgamma(x):
    """Elementwise log-gamma function."""
    return _Lgamma().apply((x,))[0]


def digamma(x):
    """Elementwise digamma function."""
    return _Polygamma(0).apply((x,))[0]


def polygamma(n, x):
    """Elementwise ``n``-th derivative of the digamma function."""
    return _Polygamma(n).apply((x,))[0]


def ndtr(x):
    """Elementwise standard normal CDF."""
    return _Ndtr().apply((x,))[0]


def log_ndtr(x):
    """Elementwise log of the standard normal CDF."""
    return _LogNdtr().apply((x,))[0]


def ndtri(x):
    """Elementwise inverse of the standard normal CDF."""
    return _Ndtri().apply((x,))[0]


def sqrt(x):
    """Elementwise square root."""
    return variable.as_variable(x) ** 0.5


def log_softmax(x):
    """Log-softmax over the last axis."""
    return _LogSoftmax().apply((x,))[0]


def softmax(x):
    """Softmax over the last axis."""
    return exp(log_softmax(x))


def triangular_inv(x):
    """Inverse of the lower triangle of ``x`` (shape ``(..., d, d)``)."""
    return _TriangularInv().apply((x,))[0]


def swap_last(x):
    """Transposes the last two axes."""
    axes = list(range(x.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return transpose(x, tuple(axes))


def lbeta(a, b):
    """Elementwise log of the beta function."""
    return lgamma(a) + lgamma(b) - lgamma(a + b)


def xlogy(x, y):
    """Elementwise ``x * log(y)``, 0 where ``x`` is 0 (even if ``y`` is 0)."""
    x = variable.as_variable(x)
    nonzero = x.array != 0
    return where(nonzero, x * log(where(nonzero, y, 1.0)), 0.0)


def xlogx(x):
    """Elementwise ``x * log(x)``, continued by 0 at ``x = 0``."""
    x = variable.as_variable(x)
    positive = x.array > 0
    safe = where(positive, x, 1.0)
    return where(positive, safe * log(safe), 0.0)


def _operand(v, like):
    if isinstance(v, _Variable):
        return v
    xp = backend.get_array_module(like)
    if isinstance(v, (int, float, numpy.generic)):
        return xp.full(like.shape, v, dtype=like.dtype)
    return v.astype(like.dtype, copy=False)


def where(condition, x, y):
    """Chooses elements of ``x`` where ``condition`` holds, else of ``y``.

    ``condition`` is a boolean array; ``x`` and ``y`` are Variables, arrays or
    scalars (at least one of them an array or a Variable). All three broadcast.
    """
    condition = variable.as_array(condition)
    like = x if not isinstance(x, (int, float, numpy.generic)) else y
    like = variable.as_array(like)
    x = _operand(x, like)
    y = _operand(y, like)
    shape = numpy.broadcast_shapes(condition.shape, x.shape, y.shape)
    if condition.shape != shape:
        xp = backend.get_array_module(condition)
        condition = xp.broadcast_to(condition, shape)
    if x.shape != shape:
        x = broadcast_to(x, shape)
    if y.shape != shape:
        y = broadcast_to(y, shape)
    return _Where(condition).apply((x, y))[0]


def safe_log(x, mask):
    """``log(x)`` where ``mask`` holds and 0 elsewhere, with finite gradients."""
    return where(mask, log(where(mask, x, 1.0)), 0.0)
