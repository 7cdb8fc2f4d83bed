import sys

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import log_ndtr
from chainer.utils import type_check

special = pytest.importorskip("scipy.special")

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestLogNdtr(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 2e-3, "rtol": 2e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        x = numpy.random.uniform(-3.0, 3.0, self.shape)
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        return (log_ndtr.log_ndtr(inputs[0]),)

    def forward_expected(self, inputs):
        y = special.log_ndtr(inputs[0].astype(numpy.float64))
        return (numpy.asarray(y).astype(self.dtype),)


def test_gradient_is_finite_far_in_both_tails():
    x = chainer.Variable(numpy.array([-50.0, -10.0, 10.0, 50.0]))
    y = log_ndtr.log_ndtr(x)
    y.grad = numpy.ones(4)
    y.backward()
    pdf_over_cdf = numpy.exp(-0.5 * x.array**2 - y.array) / numpy.sqrt(2 * numpy.pi)
    numpy.testing.assert_allclose(x.grad, pdf_over_cdf, rtol=1e-12)
    # d/dx log ndtr(x) approaches -x in the lower tail.
    assert abs(x.grad[0] - 50.0) < 0.1


def test_label():
    x = chainer.Variable(numpy.full(2, 0.5, numpy.float32))
    assert log_ndtr.log_ndtr(x).creator.label == "log_ndtr"


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        log_ndtr.log_ndtr(numpy.arange(3, dtype=numpy.int32))


def test_missing_scipy_is_reported(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match=r"pip install 'chainer-links\[special\]'"):
        log_ndtr.log_ndtr(numpy.full(2, 0.5, numpy.float32))
