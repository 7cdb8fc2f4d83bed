"""Elementwise complementary error function, computed without SciPy."""

import numpy

from chainer import backend
from chainer import function_node
from chainer.functions.math import _special
from chainer.functions.math import exponential
from chainer.utils import type_check


class Erfc(function_node.FunctionNode):
    @property
    def label(self):
        return "erfc"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        # Terms are sized for the precision of the input; the arithmetic is
        # float64 throughout.
        n_series, n_fraction = (27, 40) if x.dtype == numpy.float64 else (15, 12)
        x64 = x.astype(numpy.float64, copy=False)
        a = xp.abs(x64)
        small = a < _special.ERF_SPLIT
        # Inputs of typical magnitude need only the series.
        if small.all():
            y = 1.0 - _special.erf_series(x64, n_series)
        else:
            large = xp.logical_not(small)
            y = xp.empty_like(x64)
            y[small] = 1.0 - _special.erf_series(x64[small], n_series)
            tail = _special.erfc_fraction(
                xp.minimum(a[large], _special.ERF_CLAMP), n_fraction
            )
            # erfc(-a) = 2 - erfc(a)
            y[large] = xp.where(x64[large] > 0, tail, 2.0 - tail)
        return (y.astype(x.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (
            grad_outputs[0] * exponential.exp(-(x * x)) * -_special.TWO_OVER_SQRT_PI,
        )


def erfc(x):
    """Elementwise complementary error function.

    .. math:: y_i = 1 - \\mathrm{erf}(x_i)
        = \\frac{2}{\\sqrt{\\pi}} \\int_{x_i}^{\\infty} e^{-t^2} dt

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Erfc().apply((x,))[0]
