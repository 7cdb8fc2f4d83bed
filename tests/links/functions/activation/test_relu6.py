import numpy
import pytest

from chainer import testing
from chainer.functions.activation import relu6
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestReLU6(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-2, 8, self.shape).astype(self.dtype)
        # Keep away from the kinks at 0 and 6.
        x[abs(x) < 0.1] = 3.0
        x[abs(x - 6) < 0.1] = 3.0
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        return (relu6.relu6(x),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.minimum(numpy.maximum(x, 0), 6).astype(self.dtype),)


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        relu6.relu6(numpy.arange(3, dtype=numpy.int64))
