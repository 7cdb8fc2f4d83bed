"""Elementwise scaled complementary error function (needs SciPy)."""

import math

from chainer import backend
from chainer import function_node
from chainer.functions.math import _special
from chainer.utils import type_check

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class Erfcx(function_node.FunctionNode):
    @property
    def label(self):
        return "erfcx"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        # SciPy works on host arrays; others make a round trip.
        y = _special.scipy_special("erfcx").erfcx(backend.CpuDevice().send(x))
        y = backend.get_device_from_array(x).send(y.astype(x.dtype, copy=False))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * (2.0 * x * y - _TWO_OVER_SQRT_PI),)


def erfcx(x):
    """Elementwise scaled complementary error function.

    .. math:: y_i = \\exp(x_i^2) \\, \\mathrm{erfc}(x_i)

    .. note::
       The forward computation needs SciPy
       (``pip install chainer-links[special]``).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Erfcx().apply((x,))[0]
