import warnings

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.activation import softmax
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _softmax(x, axis):
    x = x.astype(numpy.float64)
    e = numpy.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@testing.parameterize(
    *testing.product(
        {
            "shape_axis": [((2, 3), 1), ((2, 3), 0), ((2, 3, 4), -1), ((4,), 0)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSoftmax(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (softmax.softmax(x, axis=self.axis),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_softmax(x, self.axis).astype(self.dtype),)


@pytest.mark.parametrize("dtype", _FLOATS)
def test_large_inputs_are_stable(dtype):
    x = numpy.array([[1000, 1000, -1000], [-1000, -1000, -1000]], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = softmax.softmax(x).array
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y, [[0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]], 1e-3)


def test_default_axis_is_one():
    x = numpy.random.uniform(-1, 1, (2, 3, 4)).astype(numpy.float32)
    y = softmax.softmax(x)
    numpy.testing.assert_allclose(y.array, _softmax(x, 1), rtol=1e-5)


def test_backward_uses_the_retained_output():
    x = chainer.Variable(numpy.ones((1, 3), numpy.float32))
    y = softmax.softmax(x)
    assert y.creator._output_indexes_to_retain == (0,)


@pytest.mark.parametrize("axis", [2, -3])
def test_axis_out_of_range_is_invalid(axis):
    with pytest.raises(type_check.InvalidType):
        softmax.softmax(numpy.zeros((2, 3), numpy.float32), axis=axis)


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        softmax.softmax(numpy.zeros((2, 3), numpy.int32))
