import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import exponential_m1
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]
_PARAMS = testing.product({"shape": [(3, 2), ()], "dtype": _FLOATS})


class _UnaryCase:
    # func, reference and the input range are set by each test class.
    low, high = -1.0, 1.0

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        x = numpy.random.uniform(self.low, self.high, self.shape)
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        return (type(self).func(inputs[0]),)

    def forward_expected(self, inputs):
        y = type(self).reference(inputs[0].astype(numpy.float64))
        return (numpy.asarray(y).astype(self.dtype),)


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestExpm1(_UnaryCase, testing.FunctionTestCase):
    func = exponential_m1.expm1
    reference = numpy.expm1
    low, high = -2.0, 2.0


@pytest.mark.parametrize("func", [exponential_m1.expm1])
def test_int_input_is_invalid(func):
    with pytest.raises(type_check.InvalidType):
        func(numpy.arange(3, dtype=numpy.int32))


def test_labels():
    x = chainer.Variable(numpy.full(2, 0.5, numpy.float32))
    for name in ("expm1",):
        assert getattr(exponential_m1, name)(x).creator.label == name


def test_accurate_for_tiny_inputs():
    x = numpy.array([1e-10, -1e-12], numpy.float64)
    y = exponential_m1.expm1(x)
    numpy.testing.assert_allclose(y.array, x + x * x / 2, rtol=1e-15)
