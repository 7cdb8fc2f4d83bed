import warnings

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.activation import log_softmax
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _log_softmax(x, axis):
    x = x.astype(numpy.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - numpy.log(numpy.exp(x - m).sum(axis=axis, keepdims=True))


@testing.parameterize(
    *testing.product(
        {
            "shape_axis": [((2, 3), 1), ((2, 3), 0), ((2, 3, 4), -1), ((4,), 0)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestLogSoftmax(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (log_softmax.log_softmax(x, axis=self.axis),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_log_softmax(x, self.axis).astype(self.dtype),)


@pytest.mark.parametrize("dtype", _FLOATS)
def test_extreme_inputs_are_stable(dtype):
    # log(softmax(x)) would give -inf for the smallest entry.
    x = numpy.array([[1000, 0, -1000]], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = log_softmax.log_softmax(x).array
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y, [[0, -1000, -2000]], rtol=1e-3)


def test_gradient_of_extreme_inputs_is_finite():
    x = chainer.Variable(numpy.array([[1000, 0, -1000]], numpy.float32))
    y = log_softmax.log_softmax(x)
    y.grad = numpy.ones((1, 3), numpy.float32)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [[-2, 1, 1]])


@pytest.mark.parametrize("axis", [2, -3])
def test_axis_out_of_range_is_invalid(axis):
    with pytest.raises(type_check.InvalidType):
        log_softmax.log_softmax(numpy.zeros((2, 3), numpy.float32), axis=axis)


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        log_softmax.log_softmax(numpy.zeros((2, 3), numpy.int32))
