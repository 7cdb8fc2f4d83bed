"""Helpers shared by the distributions (``chainer.distributions.utils``)."""

import warnings

from chainer import backend
from chainer import function_node
from chainer import variable
from chainer.distributions import _math
from chainer.utils import type_check


class ModifiedXLogX(function_node.FunctionNode):
    """``x * log(x)`` continued by its limit 0 at ``x = 0``.

    The gradient ``1 + log(x)`` is infinite at 0; there it is taken as 0 and
    the backward pass warns with a :class:`RuntimeWarning`.

    Args:
        logx (~chainer.Variable): ``log(x)`` wherever ``x > 0`` (any finite
            value elsewhere); the backward pass is written with it, so
            computing it from ``x`` with differentiable functions gives double
            backprop.
    """

    def __init__(self, logx):
        self._logx = logx

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self._x_zero = x == 0
        y = xp.where(self._x_zero, x.dtype.type(0), x * self._logx.array)
        return (xp.asarray(y, dtype=x.dtype),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        if self._x_zero.any():
            warnings.warn(
                "the gradient of x * log(x) is infinite at x = 0; it is taken as 0",
                RuntimeWarning,
                stacklevel=2,
            )
        nonzero = (~self._x_zero).astype(gy.dtype)
        return (gy * (1 + self._logx) * nonzero,)


def _modified_xlogx(x):
    # x * log(x) with 0 at x = 0, differentiable twice where x > 0.
    x = variable.as_variable(x)
    positive = x.array > 0
    logx = _math.log(_math.where(positive, x, 1.0))
    return ModifiedXLogX(logx).apply((x,))[0]
