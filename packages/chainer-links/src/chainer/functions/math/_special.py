"""Shared pieces of the special functions (private to ``chainer.functions.math``)."""

import math

import numpy

from chainer import backend
from chainer.utils import install_hint


def scipy_special(function_name):
    """Returns ``scipy.special``, or raises ImportError naming the extra to install.

    Args:
        function_name (str): The catalogue function that needs SciPy.
    """
    try:
        from scipy import special
    except ImportError:
        raise ImportError(
            f"{function_name} needs SciPy; install it with: pip install scipy; "
            "or with chainer-links' extra special: "
            f"{install_hint.install_hint('chainer-links', 'special')}"
        ) from None
    return special


TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# |x| below this uses the power series, above it the continued fraction; both
# then need few terms (measured against math.erf: under 3 ulp in float64).
ERF_SPLIT = 1.5
# erfc(x) underflows to 0 in float64 beyond this; clamping keeps inf finite.
ERF_CLAMP = 30.0

# 1 / (2k + 1)!! for k = 0, 1, ...: the coefficients of the series below.
_SERIES = [1.0 / math.prod(range(1, 2 * k + 2, 2)) for k in range(28)]


def erf_series(x, n_terms):
    """erf(x) by its power series (float64 ``x``, ``|x| < ERF_SPLIT``)."""
    # erf(x) = 2/sqrt(pi) x exp(-x^2) sum_k (2x^2)^k / (2k+1)!!: all terms are
    # positive, so there is no cancellation.
    xp = backend.get_array_module(x)
    z = 2.0 * x * x
    s = _SERIES[n_terms] * z + _SERIES[n_terms - 1]
    for k in range(n_terms - 2, -1, -1):
        s *= z
        s += _SERIES[k]
    return TWO_OVER_SQRT_PI * x * xp.exp(-x * x) * s


def erfc_fraction(x, n_terms):
    """erfc(x) by a continued fraction (float64 ``x >= ERF_SPLIT``)."""
    # Laplace's continued fraction of erfc(x), contracted to its even part,
    # evaluated from the tail.
    xp = backend.get_array_module(x)
    z = 2.0 * x * x
    t = z + (4 * n_terms + 1)
    for k in range(n_terms, 0, -1):
        t = z + (4 * k - 3) - (2 * k - 1) * (2 * k) / t
    # exp(-x^2) = exp(-h^2) exp(-(x - h)(x + h)) with h = x to 24 bits, so
    # that h^2 is exact: x^2 itself would be rounded by up to ~250 ulp of the
    # result in the far tail.
    h = x.astype(numpy.float32).astype(numpy.float64)
    return TWO_OVER_SQRT_PI * x * xp.exp(-h * h) * xp.exp((h - x) * (h + x)) / t
