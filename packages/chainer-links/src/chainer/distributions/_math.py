"""Differentiable math the distributions are written with.

Mostly the catalogue's functions under short names; the two nodes defined here
(a broadcasting ``where`` and the inverse of a lower triangle) have no
catalogue counterpart. Everything supports double backprop.
"""

import math

import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer import variable
from chainer.functions.activation import log_softmax as _log_softmax
from chainer.functions.activation import sigmoid as _sigmoid
from chainer.functions.activation import softplus as _softplus
from chainer.functions.math import digamma as _digamma
from chainer.functions.math import exponential
from chainer.functions.math import exponential_m1
from chainer.functions.math import lgamma as _lgamma
from chainer.functions.math import log_ndtr as _log_ndtr
from chainer.functions.math import logarithm_1p
from chainer.functions.math import ndtr as _ndtr
from chainer.functions.math import ndtri as _ndtri
from chainer.functions.math import polygamma as _polygamma
from chainer.functions.math import trigonometric
from chainer.utils import type_check

LOG_2PI = math.log(2 * math.pi)
EULER = 0.57721566490153286061

_Variable = variable.Variable

# The catalogue's functions, under short names for the formulas below.
exp = exponential.exp
log1p = logarithm_1p.log1p
expm1 = exponential_m1.expm1
softplus = _softplus.softplus
sigmoid = _sigmoid.sigmoid
arctan = trigonometric.arctan
tan = trigonometric.tan
lgamma = _lgamma.lgamma
digamma = _digamma.digamma
ndtr = _ndtr.ndtr
log_ndtr = _log_ndtr.log_ndtr
ndtri = _ndtri.ndtri

# Core primitives, under the names chainer.functions gives them.
log = primitive_ops.log
matmul = primitive_ops.matmul
absolute = primitive_ops.absolute
broadcast_to = primitive_ops.broadcast_to
reshape = primitive_ops.reshape
transpose = primitive_ops.transpose
get_item = primitive_ops.get_item
sum = primitive_ops.sum


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


def polygamma(n, x):
    """Elementwise ``n``-th derivative of the digamma function (``n`` an int)."""
    xp = backend.get_array_module(variable.as_array(x))
    return _polygamma.polygamma(xp.asarray(n, dtype=numpy.int32), x)


def sqrt(x):
    """Elementwise square root."""
    return variable.as_variable(x) ** 0.5


def log_softmax(x):
    """Log-softmax over the last axis."""
    return _log_softmax.log_softmax(x, axis=-1)


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
