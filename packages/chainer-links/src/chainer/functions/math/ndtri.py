"""Elementwise inverse of the standard normal CDF (needs SciPy)."""

import math

from chainer import backend
from chainer import function_node
from chainer.functions.math import _special
from chainer.functions.math import exponential
from chainer.utils import type_check

_SQRT_2PI = math.sqrt(2.0 * math.pi)


class Ndtri(function_node.FunctionNode):
    @property
    def label(self):
        return "ndtri"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        # SciPy works on host arrays; others make a round trip.
        y = _special.scipy_special("ndtri").ndtri(backend.CpuDevice().send(x))
        y = backend.get_device_from_array(x).send(y.astype(x.dtype, copy=False))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * exponential.exp(y * y * 0.5) * _SQRT_2PI,)


def ndtri(x):
    """Elementwise inverse of :func:`ndtr`, the standard normal quantile.

    .. math:: y_i = \\mathrm{ndtr}^{-1}(x_i)

    .. note::
       The forward computation needs SciPy
       (``pip install chainer-links[special]``).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape,
            with values in :math:`[0, 1]`.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Ndtri().apply((x,))[0]
