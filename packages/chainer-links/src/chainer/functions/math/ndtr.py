"""Elementwise standard normal CDF (needs SciPy)."""

import math

from chainer import backend
from chainer import function_node
from chainer.functions.math import _special
from chainer.functions.math import exponential
from chainer.utils import type_check

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


class Ndtr(function_node.FunctionNode):
    @property
    def label(self):
        return "ndtr"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        # SciPy works on host arrays; others make a round trip.
        y = _special.scipy_special("ndtr").ndtr(backend.CpuDevice().send(x))
        y = backend.get_device_from_array(x).send(y.astype(x.dtype, copy=False))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * exponential.exp(x * x * -0.5) * _INV_SQRT_2PI,)


def ndtr(x):
    """Elementwise cumulative distribution function of the standard normal.

    .. math:: y_i = \\frac{1}{\\sqrt{2\\pi}} \\int_{-\\infty}^{x_i} e^{-t^2/2} dt

    .. note::
       The forward computation needs SciPy
       (``pip install chainer-links[special]``).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Ndtr().apply((x,))[0]
