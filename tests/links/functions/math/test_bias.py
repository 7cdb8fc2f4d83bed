import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import bias
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                ((3, 2, 4), (2,), 1),
                ((3, 2, 4), (2, 4), 1),
                ((3, 2, 4), (3,), 0),
                ((3, 2, 4), (3, 2, 4), 0),
                ((3, 2, 4), (4,), -1),
                ((3, 2, 4), (1, 4), 1),
                ((3, 2), (), 1),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestBias(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x_shape, y_shape, _ = self.case
        x = numpy.random.uniform(-1, 1, x_shape).astype(self.dtype)
        y = numpy.random.uniform(-1, 1, y_shape).astype(self.dtype)
        return x, y

    def forward(self, inputs, device):
        x, y = inputs
        z = bias.bias(x, y, axis=self.case[2])
        return (z,)

    def forward_expected(self, inputs):
        x, y = inputs
        axis = self.case[2] % x.ndim if self.case[2] < 0 else self.case[2]
        y1 = y.reshape((1,) * axis + y.shape + (1,) * (x.ndim - axis - y.ndim))
        return (numpy.asarray(x + y1),)


def test_caffe_broadcasting_example():
    x = numpy.random.uniform(-1, 1, (5, 3, 4, 6)).astype(numpy.float32)
    y = numpy.random.uniform(-1, 1, (3, 4)).astype(numpy.float32)
    z = bias.bias(chainer.Variable(x), y, axis=1)
    numpy.testing.assert_allclose(z.array, x + y[None, :, :, None], rtol=1e-6)


def test_default_axis_is_one():
    x = numpy.ones((2, 3), numpy.float32)
    y = numpy.arange(3, dtype=numpy.float32)
    numpy.testing.assert_array_equal(bias.bias(x, y).array, x + y)


@pytest.mark.parametrize(
    ("x_shape", "y_shape", "axis"),
    [((3, 2, 4), (4,), 1), ((3, 2), (2, 5), 1), ((3, 2), (2,), 3), ((3,), (3,), -3)],
)
def test_mismatched_shapes_are_invalid(x_shape, y_shape, axis):
    x = numpy.ones(x_shape, numpy.float32)
    y = numpy.ones(y_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        bias.bias(x, y, axis=axis)


def test_mismatched_shapes_assert_in_debug_mode():
    x = numpy.zeros((3, 2, 3), numpy.float32)
    with chainer.using_config("debug", True), pytest.raises(AssertionError):
        bias.bias(x, numpy.zeros(2, numpy.float32), axis=0)


def test_mixed_dtypes_are_invalid():
    x = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        bias.bias(x, numpy.ones(3, numpy.float64))
