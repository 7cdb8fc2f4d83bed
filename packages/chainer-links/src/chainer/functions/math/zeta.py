"""Elementwise Hurwitz zeta function (needs SciPy)."""

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer import variable
from chainer.functions.math import _special
from chainer.utils import type_check


class Zeta(function_node.FunctionNode):
    """Hurwitz zeta function of ``q`` for a constant exponent ``x``."""

    def __init__(self, x):
        self._x = x

    @property
    def label(self):
        return "zeta"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("q",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (q,) = inputs
        self.retain_inputs((0,))
        # SciPy works on host arrays; others make a round trip.
        cpu = backend.CpuDevice()
        y = _special.scipy_special("zeta").zeta(cpu.send(self._x), cpu.send(q))
        y = backend.get_device_from_array(q).send(y.astype(q.dtype, copy=False))
        return (y,)

    def backward(self, indexes, grad_outputs):
        (q,) = self.get_retained_inputs()
        x = self._x
        if backend.is_array_supported(x):
            x = backend.get_device_from_array(q.array).send(x)
        # d zeta(x, q) / dq = -x zeta(x + 1, q)
        gq = grad_outputs[0] * zeta(x + 1, q) * -x
        if gq.shape != q.shape:
            gq = primitive_ops.sum_to(gq, q.shape)
        return (gq,)


def zeta(x, q):
    """Elementwise Hurwitz zeta function, differentiable with respect to ``q``.

    .. math:: y_i = \\zeta(x_i, q_i) = \\sum_{k=0}^{\\infty} (k + q_i)^{-x_i}

    .. note::
       The forward computation needs SciPy
       (``pip install chainer-links[special]``).

    Args:
        x (float, :ref:`ndarray` or ~chainer.Variable): The exponent, a
            constant: no gradient flows to it. An array must broadcast with
            ``q``.
        q (~chainer.Variable or :ref:`ndarray`): Float array of the offsets.

    Returns:
        ~chainer.Variable: The values, of the broadcast shape and the dtype of
        ``q``.
    """
    if isinstance(x, variable.Variable):
        x = x.array
    return Zeta(x).apply((q,))[0]
