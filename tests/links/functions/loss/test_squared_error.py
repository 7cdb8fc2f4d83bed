import numpy
import pytest

from chainer import testing
from chainer.functions.loss import squared_error
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "shape": [(4, 3), (), (2, 3, 2)],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestSquaredError(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        x0 = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        x1 = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return x0, x1

    def forward(self, inputs, device):
        x0, x1 = inputs
        return (squared_error.squared_error(x0, x1),)

    def forward_expected(self, inputs):
        x0, x1 = inputs
        diff = x0.astype(numpy.float64) - x1
        return (numpy.asarray(diff * diff, dtype=self.dtype),)


@pytest.mark.parametrize(
    ("x0", "x1"),
    [
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "d")),
        (numpy.zeros((2, 3), "f"), numpy.zeros((3, 2), "f")),
        (numpy.zeros((2, 3), "i"), numpy.zeros((2, 3), "i")),
    ],
)
def test_invalid_inputs(x0, x1):
    with pytest.raises(type_check.InvalidType):
        squared_error.squared_error(x0, x1)
