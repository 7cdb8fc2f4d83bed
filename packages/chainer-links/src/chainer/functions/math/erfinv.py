"""Elementwise inverse error function (needs SciPy)."""

import math

from chainer import backend
from chainer import function_node
from chainer.functions.math import _special
from chainer.functions.math import exponential
from chainer.utils import type_check

_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0


class ErfInv(function_node.FunctionNode):
    @property
    def label(self):
        return "erfinv"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        # SciPy works on host arrays; others make a round trip.
        y = _special.scipy_special("erfinv").erfinv(backend.CpuDevice().send(x))
        y = backend.get_device_from_array(x).send(y.astype(x.dtype, copy=False))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * exponential.exp(y * y) * _HALF_SQRT_PI,)


def erfinv(x):
    """Elementwise inverse function of the error function.

    .. math:: y_i = \\mathrm{erf}^{-1}(x_i)

    .. note::
       The forward computation needs SciPy
       (``pip install chainer-links[special]``).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with values in :math:`[-1, 1]`.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return ErfInv().apply((x,))[0]
