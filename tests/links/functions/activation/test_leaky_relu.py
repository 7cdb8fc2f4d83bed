import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.activation import leaky_relu
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {"shape": [(3, 4), ()], "dtype": _FLOATS, "slope": [0.2, 0.0, -0.3]}
    )
)
@testing.inject_backend_tests(None, [{}])
class TestLeakyReLU(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        # Keep away from the kink at 0.
        x[abs(x) < 0.1] = 0.5
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        return (leaky_relu.leaky_relu(x, slope=self.slope),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.where(x >= 0, x, self.slope * x).astype(self.dtype),)


def test_default_slope_and_gradient_at_zero():
    x = chainer.Variable(numpy.array([-1.0, 0.0, 1.0], numpy.float32))
    y = leaky_relu.leaky_relu(x)
    numpy.testing.assert_allclose(y.array, [-0.2, 0.0, 1.0])
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    # As in Chainer, the gradient at 0 is the slope.
    numpy.testing.assert_allclose(x.grad, [0.2, 0.2, 1.0])


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        leaky_relu.leaky_relu(numpy.arange(3, dtype=numpy.int32))
