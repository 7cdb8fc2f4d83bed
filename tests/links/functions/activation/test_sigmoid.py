import warnings

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.activation import sigmoid
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestSigmoid(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-3, 3, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (sigmoid.sigmoid(x),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = 1 / (1 + numpy.exp(-x.astype(numpy.float64)))
        return (y.astype(self.dtype),)


@pytest.mark.parametrize("dtype", _FLOATS)
def test_extreme_inputs_are_stable(dtype):
    x = numpy.array([-1000, -50, 0, 50, 1000], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = sigmoid.sigmoid(x).array
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y, [0, 0, 0.5, 1, 1], atol=1e-7)


def test_backward_uses_the_retained_output():
    x = chainer.Variable(numpy.array([0.3], numpy.float64))
    y = sigmoid.sigmoid(x)
    assert y.creator._output_indexes_to_retain == (0,)
    y.grad = numpy.ones(1)
    y.backward()
    s = 1 / (1 + numpy.exp(-0.3))
    numpy.testing.assert_allclose(x.grad, [s * (1 - s)])


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        sigmoid.sigmoid(numpy.arange(3, dtype=numpy.int32))
