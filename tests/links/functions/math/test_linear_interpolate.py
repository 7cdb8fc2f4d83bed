import numpy
import pytest

from chainer import testing
from chainer.functions.math import linear_interpolate
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestLinearInterpolate(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        p = numpy.random.uniform(0, 1, self.shape)
        x = numpy.random.uniform(-1, 1, self.shape)
        y = numpy.random.uniform(-1, 1, self.shape)
        return p.astype(self.dtype), x.astype(self.dtype), y.astype(self.dtype)

    def forward(self, inputs, device):
        return (linear_interpolate.linear_interpolate(*inputs),)

    def forward_expected(self, inputs):
        p, x, y = (a.astype(numpy.float64) for a in inputs)
        return (numpy.asarray(p * x + (1 - p) * y).astype(self.dtype),)


def test_end_points_are_exact():
    x = numpy.array([0.1, 0.7], numpy.float32)
    y = numpy.array([0.3, -2.0], numpy.float32)
    one = numpy.ones(2, numpy.float32)
    numpy.testing.assert_array_equal(
        linear_interpolate.linear_interpolate(one, x, y).array, x
    )
    numpy.testing.assert_array_equal(
        linear_interpolate.linear_interpolate(one * 0, x, y).array, y
    )


def test_shapes_must_match():
    a = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        linear_interpolate.linear_interpolate(a, a, a[0])


def test_dtypes_must_match():
    a = numpy.ones(3, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        linear_interpolate.linear_interpolate(a, a.astype(numpy.float64), a)


def test_int_inputs_are_invalid():
    a = numpy.ones(3, numpy.int32)
    with pytest.raises(type_check.InvalidType):
        linear_interpolate.linear_interpolate(a, a, a)
