import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.activation import clipped_relu
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS, "z": [0.75, 20.0]})
)
@testing.inject_backend_tests(None, [{}])
class TestClippedReLU(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        # Keep away from the kinks at 0 and z.
        x[abs(x) < 0.1] = 0.5
        x[abs(x - self.z) < 0.1] = 0.5
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        return (clipped_relu.clipped_relu(x, self.z),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.minimum(numpy.maximum(x, 0), self.z).astype(self.dtype),)


def test_clips_both_sides():
    x = numpy.array([-30.0, 0.0, 5.0, 30.0], numpy.float32)
    y = clipped_relu.clipped_relu(x, z=10.0)
    numpy.testing.assert_array_equal(y.array, [0.0, 0.0, 5.0, 10.0])
    assert y.dtype == numpy.float32


def test_gradient_is_zero_outside_the_band():
    x = chainer.Variable(numpy.array([-1.0, 0.5, 2.0], numpy.float64))
    y = clipped_relu.clipped_relu(x, z=1.0)
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0, 0.0])


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        clipped_relu.clipped_relu(numpy.arange(3, dtype=numpy.int32))


@pytest.mark.parametrize("z", [0.0, -1.0])
def test_non_positive_z_is_rejected(z):
    with pytest.raises(ValueError, match="positive"):
        clipped_relu.clipped_relu(numpy.zeros(3, numpy.float32), z)


def test_non_number_z_is_rejected():
    with pytest.raises(TypeError, match="float"):
        clipped_relu.clipped_relu(numpy.zeros(3, numpy.float32), "1")
