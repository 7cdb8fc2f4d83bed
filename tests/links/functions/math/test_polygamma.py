import sys

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import polygamma
from chainer.utils import type_check

special = pytest.importorskip("scipy.special")

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((3, 2), (3, 2)), ((), ()), ((), (3, 2)), ((2,), (3, 1))],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestPolyGamma(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        n_shape, x_shape = self.shapes
        n = numpy.random.randint(0, 3, n_shape).astype(numpy.int32)
        x = numpy.random.uniform(1.0, 3.0, x_shape).astype(self.dtype)
        return n, x

    def forward(self, inputs, device):
        return (polygamma.polygamma(*inputs),)

    def forward_expected(self, inputs):
        n, x = inputs
        y = special.polygamma(n, x.astype(numpy.float64))
        return (numpy.asarray(y).astype(self.dtype),)


def test_order_zero_is_digamma():
    x = numpy.linspace(0.5, 5, 7)
    y = polygamma.polygamma(numpy.zeros((), numpy.int32), x)
    numpy.testing.assert_allclose(y.array, special.psi(x), rtol=1e-14)


def test_order_has_no_gradient():
    n = chainer.Variable(numpy.array([1, 2], numpy.int32))
    x = chainer.Variable(numpy.array([1.5, 2.5]))
    y = polygamma.polygamma(n, x)
    y.grad = numpy.ones(2)
    y.backward()
    assert n.grad is None
    numpy.testing.assert_allclose(x.grad, special.polygamma([2, 3], x.array))


def test_float_order_is_invalid():
    x = numpy.ones(3, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        polygamma.polygamma(x, x)


def test_int_x_is_invalid():
    n = numpy.ones(3, numpy.int32)
    with pytest.raises(type_check.InvalidType):
        polygamma.polygamma(n, n)


def test_shapes_must_broadcast():
    with pytest.raises(type_check.InvalidType):
        polygamma.polygamma(numpy.ones(2, numpy.int32), numpy.ones(3, numpy.float32))


def test_missing_scipy_is_reported(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match=r"pip install 'chainer-links\[special\]'"):
        polygamma.polygamma(numpy.ones(2, numpy.int32), numpy.ones(2, numpy.float32))
