import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"shape": [(3, 2), (2, 3, 4), (1, 1)], "dtype": _FLOATS})
)
@testing.inject_backend_tests(None, [{}])
class TestFliplr(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (a,) = inputs
        return (functions.fliplr(a),)

    def forward_expected(self, inputs):
        (a,) = inputs
        return (a[:, ::-1].copy(),)


@pytest.mark.parametrize("shape", [(), (3,)])
def test_invalid(shape):
    a = numpy.zeros(shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.fliplr(a)
