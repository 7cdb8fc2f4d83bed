import sys

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import erfcx
from chainer.utils import type_check

special = pytest.importorskip("scipy.special")

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestErfcx(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        x = numpy.random.uniform(-2.0, 3.0, self.shape)
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        return (erfcx.erfcx(inputs[0]),)

    def forward_expected(self, inputs):
        y = special.erfcx(inputs[0].astype(numpy.float64))
        return (numpy.asarray(y).astype(self.dtype),)


def test_finite_far_in_the_tail():
    x = chainer.Variable(numpy.array([30.0, 1e4]))
    y = erfcx.erfcx(x)
    y.grad = numpy.ones(2)
    y.backward()
    assert numpy.all(numpy.isfinite(y.array))
    assert numpy.all(numpy.isfinite(x.grad))


def test_label():
    x = chainer.Variable(numpy.full(2, 0.5, numpy.float32))
    assert erfcx.erfcx(x).creator.label == "erfcx"


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        erfcx.erfcx(numpy.arange(3, dtype=numpy.int32))


def test_missing_scipy_is_reported(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match=r"pip install 'chainer-links\[special\]'"):
        erfcx.erfcx(numpy.full(2, 0.5, numpy.float32))
