import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import squared_difference
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((3, 2), (3, 2)), ((), ()), ((3, 2), (2,)), ((1, 4), (3, 1))],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestSquaredDifference(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        s1, s2 = self.shapes
        x1 = numpy.random.uniform(-1, 1, s1).astype(self.dtype)
        x2 = numpy.random.uniform(-1, 1, s2).astype(self.dtype)
        return x1, x2

    def forward(self, inputs, device):
        x1, x2 = inputs
        return (squared_difference.squared_difference(x1, x2),)

    def forward_expected(self, inputs):
        x1, x2 = inputs
        diff = x1.astype(numpy.float64) - x2
        return (numpy.asarray(diff * diff, dtype=self.dtype),)


def test_exported_as_f():
    assert chainer.functions.squared_difference is squared_difference.squared_difference


def test_dtype_mismatch():
    x1 = numpy.zeros((2, 3), numpy.float32)
    x2 = numpy.zeros((2, 3), numpy.float64)
    with pytest.raises(type_check.InvalidType):
        squared_difference.squared_difference(x1, x2)


def test_shape_mismatch():
    x1 = numpy.zeros((2, 3), numpy.float32)
    x2 = numpy.zeros((2, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        squared_difference.squared_difference(x1, x2)


def test_int_input():
    x = numpy.zeros((2, 3), numpy.int32)
    with pytest.raises(type_check.InvalidType):
        squared_difference.squared_difference(x, x)
