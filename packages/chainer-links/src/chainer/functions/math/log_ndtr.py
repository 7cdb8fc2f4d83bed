"""Elementwise log of the standard normal CDF (needs SciPy)."""

import math

from chainer import backend
from chainer import function_node
from chainer.functions.math import _special
from chainer.functions.math import exponential
from chainer.utils import type_check

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


class LogNdtr(function_node.FunctionNode):
    @property
    def label(self):
        return "log_ndtr"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        # SciPy works on host arrays; others make a round trip.
        y = _special.scipy_special("log_ndtr").log_ndtr(backend.CpuDevice().send(x))
        y = backend.get_device_from_array(x).send(y.astype(x.dtype, copy=False))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        # pdf(x) / cdf(x) in log space: finite far into both tails.
        return (grad_outputs[0] * exponential.exp(x * x * -0.5 - y - _HALF_LOG_2PI),)


def log_ndtr(x):
    """Elementwise logarithm of the standard normal CDF, stable in the tails.

    .. math:: y_i = \\ln \\mathrm{ndtr}(x_i)

    .. note::
       The forward computation needs SciPy
       (``pip install chainer-links[special]``).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return LogNdtr().apply((x,))[0]
