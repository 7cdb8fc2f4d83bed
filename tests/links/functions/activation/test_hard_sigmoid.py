import numpy
import pytest

from chainer import testing
from chainer.functions.activation import hard_sigmoid
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestHardSigmoid(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-3.5, 3.5, self.shape).astype(self.dtype)
        # Keep away from the kinks at -2.5 and 2.5.
        x[abs(abs(x) - 2.5) < 0.1] = 0.5
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        return (hard_sigmoid.hard_sigmoid(x),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = numpy.clip(x.astype(numpy.float64) * 0.2 + 0.5, 0, 1)
        return (y.astype(self.dtype),)


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        hard_sigmoid.hard_sigmoid(numpy.arange(3, dtype=numpy.int32))
