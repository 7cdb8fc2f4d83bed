"""Elementwise inverse complementary error function (needs SciPy)."""

import math

from chainer import backend
from chainer import function_node
from chainer.functions.math import _special
from chainer.functions.math import exponential
from chainer.utils import type_check

_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0


class ErfcInv(function_node.FunctionNode):
    @property
    def label(self):
        return "erfcinv"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        # SciPy works on host arrays; others make a round trip.
        y = _special.scipy_special("erfcinv").erfcinv(backend.CpuDevice().send(x))
        y = backend.get_device_from_array(x).send(y.astype(x.dtype, copy=False))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * exponential.exp(y * y) * -_HALF_SQRT_PI,)


def erfcinv(x):
    """Elementwise inverse function of the complementary error function.

    .. math:: y_i = \\mathrm{erfc}^{-1}(x_i)

    .. note::
       The forward computation needs SciPy
       (``pip install chainer-links[special]``).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with values in :math:`[0, 2]`.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return ErfcInv().apply((x,))[0]
