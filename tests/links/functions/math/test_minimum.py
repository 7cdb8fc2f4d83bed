import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import minimum
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((3, 2), (3, 2)), ((), ()), ((3, 2), (2,)), ((1, 2), (3, 1))],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestMinimum(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        # Values on two interleaved grids never tie, so the kink is avoided.
        s1, s2 = self.shapes
        x1 = numpy.random.randint(-4, 5, s1) * 0.5
        x2 = numpy.random.randint(-4, 4, s2) * 0.5 + 0.25
        return x1.astype(self.dtype), x2.astype(self.dtype)

    def forward(self, inputs, device):
        return (minimum.minimum(*inputs),)

    def forward_expected(self, inputs):
        return (numpy.asarray(numpy.minimum(*inputs)),)


def test_tie_sends_the_gradient_to_x1():
    x1 = chainer.Variable(numpy.array([1.0, 2.0, 3.0]))
    x2 = chainer.Variable(numpy.array([1.0, 0.0, 4.0]))
    y = minimum.minimum(x1, x2)
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_array_equal(x1.grad, [1, 0, 1])
    numpy.testing.assert_array_equal(x2.grad, [0, 1, 0])


def test_int_inputs_are_invalid():
    x = numpy.arange(3, dtype=numpy.int32)
    with pytest.raises(type_check.InvalidType):
        minimum.minimum(x, x)


def test_mixed_dtypes_are_invalid():
    x = numpy.ones(3, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        minimum.minimum(x, x.astype(numpy.float64))


def test_shapes_must_broadcast():
    with pytest.raises(type_check.InvalidType):
        minimum.minimum(numpy.ones((2, 3), numpy.float32), numpy.ones(4, numpy.float32))
