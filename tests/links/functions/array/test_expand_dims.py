import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                ((3, 2), 0),
                ((3, 2), 1),
                ((3, 2), 2),
                ((3, 2), -1),
                ((3, 2), -3),
                ((), 0),
                ((), -1),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestExpandDims(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.expand_dims(x, self.axis),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.expand_dims(x, self.axis),)


@pytest.mark.parametrize("axis", [3, -4])
def test_axis_out_of_range(axis):
    x = numpy.zeros((3, 2), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.expand_dims(x, axis)


def test_axis_not_int():
    x = numpy.zeros((3, 2), numpy.float32)
    with pytest.raises(TypeError, match="axis must be int"):
        functions.expand_dims(x, (0, 1))
