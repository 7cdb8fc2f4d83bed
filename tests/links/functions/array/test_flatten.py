import numpy
import pytest

from chainer import functions
from chainer import testing

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"shape": [(3, 2), (), (2, 3, 4), (0, 2)], "dtype": _FLOATS})
)
@testing.inject_backend_tests(None, [{}])
class TestFlatten(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.flatten(x),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (x.flatten(),)


def test_not_an_array():
    with pytest.raises(AttributeError):
        functions.flatten([[1.0, 2.0]])
