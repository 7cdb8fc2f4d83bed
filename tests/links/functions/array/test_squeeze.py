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
                # (shape, axis)
                ((1, 3, 1, 2), None),
                ((1, 3, 1, 2), 0),
                ((1, 3, 1, 2), (2, 0)),
                ((1, 3, 1, 2), -2),
                ((1,), None),
                ((), None),
                ((2, 3), None),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSqueeze(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.case

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.squeeze(x, self.axis),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.squeeze(x, self.axis),)


@pytest.mark.parametrize("axis", [1, (0, 1), 4, -5])
def test_invalid_axis(axis):
    x = numpy.zeros((1, 3, 1, 2), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.squeeze(x, axis)


@pytest.mark.parametrize("axis", [1.0, [0], True])
def test_axis_type(axis):
    x = numpy.zeros((1, 3), numpy.float32)
    with pytest.raises(TypeError, match="axis must be"):
        functions.squeeze(x, axis)
