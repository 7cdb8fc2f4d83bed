"""Elementwise polygamma function (needs SciPy)."""

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer import utils
from chainer.functions.math import _special
from chainer.utils import type_check


class PolyGamma(function_node.FunctionNode):
    @property
    def label(self):
        return "polygamma"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("n", "x"))
        n_type, x_type = in_types
        type_check.expect(n_type.dtype.kind == "i", x_type.dtype.kind == "f")
        type_check.expect_broadcast_shapes(n_type.shape, x_type.shape)

    def forward(self, inputs):
        n, x = inputs
        self.retain_inputs((0, 1))
        # SciPy works on host arrays; others make a round trip.
        cpu = backend.CpuDevice()
        y = _special.scipy_special("polygamma").polygamma(cpu.send(n), cpu.send(x))
        y = backend.get_device_from_array(x).send(y.astype(x.dtype, copy=False))
        return (y,)

    def backward(self, indexes, grad_outputs):
        n, x = self.get_retained_inputs()
        gx = grad_outputs[0] * polygamma(utils.force_array(n.array + 1), x)
        if gx.shape != x.shape:
            gx = primitive_ops.sum_to(gx, x.shape)
        # n is an integer order: it has no gradient.
        return tuple(None if i == 0 else gx for i in indexes)


def polygamma(n, x):
    """Elementwise polygamma function of order ``n``.

    .. math:: y_i = \\psi^{(n_i)}(x_i) = \\frac{d^{n_i + 1}}{dx^{n_i + 1}}
        \\ln \\Gamma(x) \\Big|_{x = x_i}

    .. note::
       The forward computation needs SciPy
       (``pip install chainer-links[special]``).

    Args:
        n (~chainer.Variable or :ref:`ndarray`): Integer array of
            non-negative orders (not differentiable).
        x (~chainer.Variable or :ref:`ndarray`): Float array whose shape
            broadcasts with ``n``'s.

    Returns:
        ~chainer.Variable: The values, of the broadcast shape and the dtype of
        ``x``.
    """
    return PolyGamma().apply((n, x))[0]
