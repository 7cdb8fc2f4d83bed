import sys

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import zeta
from chainer.utils import type_check

special = pytest.importorskip("scipy.special")

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                (2.5, (3, 2)),
                (3.0, ()),
                (numpy.array([2.0, 3.5]), (3, 2)),
                (numpy.array([[2.0], [4.0]]), (2,)),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestZeta(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        q = numpy.random.uniform(1.0, 2.0, self.case[1]).astype(self.dtype)
        return (q,)

    def forward(self, inputs, device):
        return (zeta.zeta(self.case[0], inputs[0]),)

    def forward_expected(self, inputs):
        y = special.zeta(self.case[0], inputs[0].astype(numpy.float64))
        return (numpy.asarray(y).astype(self.dtype),)


def test_riemann_zeta_at_two():
    y = zeta.zeta(2.0, numpy.ones((), numpy.float64))
    numpy.testing.assert_allclose(y.array, numpy.pi**2 / 6, rtol=1e-14)


def test_exponent_variable_gets_no_gradient():
    x = chainer.Variable(numpy.array([2.0, 3.0]))
    q = chainer.Variable(numpy.array([1.5, 2.5]))
    y = zeta.zeta(x, q)
    y.grad = numpy.ones(2)
    y.backward()
    assert x.grad is None
    expected = -x.array * special.zeta(x.array + 1, q.array)
    numpy.testing.assert_allclose(q.grad, expected, rtol=1e-14)


def test_int_q_is_invalid():
    with pytest.raises(type_check.InvalidType):
        zeta.zeta(2.0, numpy.arange(1, 4, dtype=numpy.int32))


def test_missing_scipy_is_reported(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match=r"pip install 'chainer-links\[special\]'"):
        zeta.zeta(2.0, numpy.ones(2, numpy.float32))
