"""Elementwise error function, computed without SciPy."""

import math

import numpy

from chainer import backend
from chainer import function_node
from chainer.functions.math import exponential
from chainer.utils import type_check

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# |x| below this uses the power series, above it the continued fraction; both
# then need few terms (measured against math.erf: under 3 ulp in float64).
_SPLIT = 1.5
# erfc(x) underflows to 0 in float64 beyond this; clamping keeps inf finite.
_CLAMP = 30.0

# 1 / (2k + 1)!! for k = 0, 1, ...: the coefficients of the series below.
_SERIES = [1.0 / math.prod(range(1, 2 * k + 2, 2)) for k in range(28)]


def _erf_series(x, n_terms):
    # erf(x) = 2/sqrt(pi) x exp(-x^2) sum_k (2x^2)^k / (2k+1)!!: all terms are
    # positive, so there is no cancellation.
    xp = backend.get_array_module(x)
    z = 2.0 * x * x
    s = _SERIES[n_terms] * z + _SERIES[n_terms - 1]
    for k in range(n_terms - 2, -1, -1):
        s *= z
        s += _SERIES[k]
    return _TWO_OVER_SQRT_PI * x * xp.exp(-x * x) * s


def _erfc_fraction(x, n_terms):
    # Laplace's continued fraction of erfc(x), contracted to its even part,
    # evaluated from the tail; meant for x >= _SPLIT.
    xp = backend.get_array_module(x)
    z = 2.0 * x * x
    t = z + (4 * n_terms + 1)
    for k in range(n_terms, 0, -1):
        t = z + (4 * k - 3) - (2 * k - 1) * (2 * k) / t
    # exp(-x^2) = exp(-h^2) exp(-(x - h)(x + h)) with h = x to 24 bits, so
    # that h^2 is exact: x^2 itself would be rounded by up to ~250 ulp of the
    # result in the far tail.
    h = x.astype(numpy.float32).astype(numpy.float64)
    return _TWO_OVER_SQRT_PI * x * xp.exp(-h * h) * xp.exp((h - x) * (h + x)) / t


class Erf(function_node.FunctionNode):
    @property
    def label(self):
        return "erf"

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
        small = a < _SPLIT
        # Inputs of typical magnitude need only the series.
        if small.all():
            y = _erf_series(x64, n_series)
        else:
            large = xp.logical_not(small)
            y = xp.empty_like(x64)
            y[small] = _erf_series(x64[small], n_series)
            erfc_a = _erfc_fraction(xp.minimum(a[large], _CLAMP), n_fraction)
            y[large] = xp.sign(x64[large]) * (1.0 - erfc_a)
        return (y.astype(x.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * exponential.exp(-(x * x)) * _TWO_OVER_SQRT_PI,)


def erf(x):
    """Elementwise error function.

    .. math:: y_i = \\frac{2}{\\sqrt{\\pi}} \\int_0^{x_i} e^{-t^2} dt

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Erf().apply((x,))[0]
