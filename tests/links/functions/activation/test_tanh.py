import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.activation import tanh
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestTanh(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-2, 2, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (tanh.tanh(x),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.tanh(x.astype(numpy.float64)).astype(self.dtype),)


def test_backward_uses_the_retained_output():
    x = chainer.Variable(numpy.array([0.3], numpy.float64))
    y = tanh.tanh(x)
    assert y.creator._output_indexes_to_retain == (0,)
    y.grad = numpy.ones(1)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [1 - numpy.tanh(0.3) ** 2])


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        tanh.tanh(numpy.arange(3, dtype=numpy.int32))
