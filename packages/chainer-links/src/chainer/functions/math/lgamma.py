"""Elementwise log-gamma function (needs SciPy)."""

from chainer import backend
from chainer import function_node
from chainer.functions.math import _special
from chainer.functions.math import digamma
from chainer.utils import type_check


class LGamma(function_node.FunctionNode):
    @property
    def label(self):
        return "lgamma"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        # SciPy works on host arrays; others make a round trip.
        y = _special.scipy_special("lgamma").gammaln(backend.CpuDevice().send(x))
        y = backend.get_device_from_array(x).send(y.astype(x.dtype, copy=False))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * digamma.digamma(x),)


def lgamma(x):
    """Elementwise logarithm of the absolute value of the gamma function.

    .. math:: y_i = \\ln |\\Gamma(x_i)|

    .. note::
       The forward computation needs SciPy
       (``pip install chainer-links[special]``).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return LGamma().apply((x,))[0]
