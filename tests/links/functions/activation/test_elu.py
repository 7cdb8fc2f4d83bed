import warnings

import numpy
import pytest

from chainer import testing
from chainer.functions.activation import elu
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS, "alpha": [1.0, 0.5]})
)
@testing.inject_backend_tests(None, [{}])
class TestELU(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        # Keep away from 0, where the second derivative jumps.
        x[abs(x) < 0.1] = 0.5
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        return (elu.elu(x, alpha=self.alpha),)

    def forward_expected(self, inputs):
        (x,) = inputs
        x64 = x.astype(numpy.float64)
        y = numpy.where(x64 >= 0, x64, self.alpha * (numpy.exp(x64) - 1))
        return (y.astype(self.dtype),)


def test_large_inputs_do_not_overflow():
    x = numpy.array([-1000.0, 1000.0, 60000.0], numpy.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = elu.elu(x)
    numpy.testing.assert_array_equal(y.array, [-1.0, 1000.0, 60000.0])


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        elu.elu(numpy.arange(3, dtype=numpy.int32))
