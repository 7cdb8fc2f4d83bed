"""The private differentiable math the distributions are built on."""

import numpy
import pytest
from scipy import special

from chainer import gradient_check
from chainer import testing
from chainer.distributions import _math

_UNARY = [
    ("exp", numpy.exp, (-2, 2)),
    ("log1p", numpy.log1p, (-0.5, 2)),
    ("expm1", numpy.expm1, (-2, 2)),
    ("softplus", lambda x: numpy.logaddexp(0, x), (-3, 3)),
    ("sigmoid", special.expit, (-3, 3)),
    ("arctan", numpy.arctan, (-2, 2)),
    ("tan", numpy.tan, (-1, 1)),
    ("lgamma", special.gammaln, (0.5, 4)),
    ("digamma", special.digamma, (0.5, 4)),
    ("ndtr", special.ndtr, (-2, 2)),
    ("log_ndtr", special.log_ndtr, (-3, 3)),
    ("ndtri", special.ndtri, (0.1, 0.9)),
    ("sqrt", numpy.sqrt, (0.5, 3)),
    ("xlogx", special.xlogy, (0.1, 2)),
]


@pytest.mark.parametrize(("name", "reference", "bounds"), _UNARY)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3, 2), ()])
def test_unary(name, reference, bounds, dtype, shape):
    fn = getattr(_math, name)
    x = numpy.random.uniform(*bounds, shape).astype(dtype)
    y = fn(x)
    assert y.dtype == dtype
    assert y.shape == shape
    xd = x.astype(numpy.float64)
    expected = reference(xd, xd) if name == "xlogx" else reference(xd)
    tol = {"atol": 1e-2, "rtol": 1e-2} if dtype == numpy.float16 else {}
    testing.assert_allclose(y.array, expected, **tol)
    if dtype == numpy.float16:
        return
    x64 = x.astype(numpy.float64)
    gy = numpy.random.normal(size=shape)
    ggx = numpy.random.normal(size=shape)
    gradient_check.check_backward(fn, x64, gy)
    gradient_check.check_double_backward(fn, x64, gy, ggx)


def test_polygamma():
    x = numpy.random.uniform(0.5, 3, 4)
    testing.assert_allclose(_math.polygamma(2, x).array, special.polygamma(2, x))
    gy = numpy.random.normal(size=4)
    gradient_check.check_double_backward(lambda x: _math.polygamma(1, x), x, gy, gy)


def test_xlogx_at_zero():
    y = _math.xlogx(numpy.array([0.0, 1.0]))
    testing.assert_allclose(y.array, [0.0, 0.0])


def test_xlogy():
    x = numpy.array([0.0, 0.5, 2.0])
    y = numpy.array([0.0, 0.3, 1.5])
    testing.assert_allclose(_math.xlogy(x, y).array, special.xlogy(x, y))
    gradient_check.check_backward(_math.xlogy, (x[1:], y[1:]), numpy.ones(2))


def test_log_softmax_and_softmax():
    x = numpy.random.normal(size=(2, 3, 4))
    testing.assert_allclose(_math.log_softmax(x).array, special.log_softmax(x, -1))
    testing.assert_allclose(_math.softmax(x).array, special.softmax(x, -1))
    gy = numpy.random.normal(size=x.shape)
    gradient_check.check_backward(_math.log_softmax, x, gy)
    gradient_check.check_double_backward(_math.log_softmax, x, gy, gy)


def test_where():
    cond = numpy.array([[True, False, True]])
    x = numpy.random.normal(size=(2, 3))
    y = numpy.random.normal(size=(3,))
    out = _math.where(cond, x, y)
    testing.assert_allclose(out.array, numpy.where(cond, x, y))
    testing.assert_allclose(_math.where(cond, x, -numpy.inf).array[:, 1], -numpy.inf)
    gy = numpy.random.normal(size=(2, 3))
    gradient_check.check_backward(lambda x, y: _math.where(cond, x, y), (x, y), gy)
    gradient_check.check_double_backward(
        lambda x, y: _math.where(cond, x, y), (x, y), gy, (x, y)
    )


def test_triangular_inv():
    lower = numpy.tril(numpy.random.normal(size=(2, 3, 3)), -1) + 2 * numpy.eye(3)
    inv = _math.triangular_inv(lower)
    testing.assert_allclose(
        numpy.matmul(inv.array, lower),
        numpy.broadcast_to(numpy.eye(3), (2, 3, 3)),
        atol=1e-12,
    )
    assert numpy.all(numpy.triu(inv.array, 1) == 0)
    gy = numpy.tril(numpy.random.normal(size=(2, 3, 3)))
    gradient_check.check_backward(_math.triangular_inv, lower, gy)
    gradient_check.check_double_backward(_math.triangular_inv, lower, gy, gy)
    half = _math.triangular_inv(lower.astype(numpy.float16))
    assert half.dtype == numpy.float16


def test_float_input_required():
    from chainer.utils import type_check

    with pytest.raises(type_check.InvalidType):
        _math.exp(numpy.arange(3))
    with pytest.raises(type_check.InvalidType):
        _math.triangular_inv(numpy.zeros((2, 3)))


def test_missing_scipy_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match=r"chainer-links\[special\]"):
        _math.lgamma(numpy.ones(2))
