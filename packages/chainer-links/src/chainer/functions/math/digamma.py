"""Elementwise digamma function (needs SciPy)."""

import numpy

from chainer import backend
from chainer import function_node
from chainer.functions.math import _special
from chainer.functions.math import polygamma
from chainer.utils import type_check


class DiGamma(function_node.FunctionNode):
    @property
    def label(self):
        return "digamma"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        # SciPy works on host arrays; others make a round trip.
        y = _special.scipy_special("digamma").psi(backend.CpuDevice().send(x))
        y = backend.get_device_from_array(x).send(y.astype(x.dtype, copy=False))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        xp = backend.get_array_module(x)
        one = xp.ones((), dtype=numpy.int32)
        return (grad_outputs[0] * polygamma.polygamma(one, x),)


def digamma(x):
    """Elementwise digamma function, the derivative of :func:`lgamma`.

    .. math:: y_i = \\psi(x_i) = \\frac{d}{dx} \\ln \\Gamma(x) \\Big|_{x = x_i}

    .. note::
       The forward computation needs SciPy
       (``pip install chainer-links[special]``).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return DiGamma().apply((x,))[0]
