import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import fmod
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((3, 4), (3, 4)), ((), ()), ((3, 4), (4,)), ((1, 4), (3, 1))],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestFmod(testing.FunctionTestCase):
    # fmod jumps where x / divisor is an integer; such draws are retried.
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        x_shape, d_shape = self.shapes
        x = numpy.random.uniform(-4, 4, x_shape)
        d = numpy.random.uniform(1, 2, d_shape) * numpy.random.choice([-1, 1], d_shape)
        return x.astype(self.dtype), d.astype(self.dtype)

    def forward(self, inputs, device):
        return (fmod.fmod(*inputs),)

    def forward_expected(self, inputs):
        x, d = inputs
        return (numpy.asarray(numpy.fmod(x, d)).astype(self.dtype),)


def test_result_has_the_sign_of_the_dividend():
    y = fmod.fmod(numpy.array([5.5, -5.5, 5.5]), numpy.array([2.0, 2.0, -2.0]))
    numpy.testing.assert_array_equal(y.array, [1.5, -1.5, 1.5])


def test_divisor_gradient_is_minus_the_truncated_quotient():
    x = chainer.Variable(numpy.array([5.5, -5.5]))
    d = chainer.Variable(numpy.array([2.0, 2.0]))
    y = fmod.fmod(x, d)
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1.0, 1.0])
    numpy.testing.assert_array_equal(d.grad, [-2.0, 2.0])


def test_mixed_dtypes_are_invalid():
    x = numpy.ones(3, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        fmod.fmod(x, x.astype(numpy.float64))


def test_int_inputs_are_invalid():
    x = numpy.arange(1, 4, dtype=numpy.int32)
    with pytest.raises(type_check.InvalidType):
        fmod.fmod(x, x)
