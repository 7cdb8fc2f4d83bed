import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.activation import relu
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"shape": [(3, 2), (), (2, 0)], "dtype": _FLOATS})
)
@testing.inject_backend_tests(None, [{}])
class TestReLU(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        # Keep away from the kink at 0, where the numerical gradient is off.
        x[abs(x) < 0.1] = 0.5
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        return (relu.relu(x),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.where(x > 0, x, 0).astype(self.dtype),)


def test_gradient_at_zero_is_zero():
    x = chainer.Variable(numpy.zeros(3, numpy.float32))
    y = relu.relu(x)
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.zeros(3, numpy.float32))


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        relu.relu(numpy.arange(3, dtype=numpy.int32))


def test_two_inputs_are_invalid():
    x = numpy.zeros(3, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        relu.ReLU().apply((x, x))
