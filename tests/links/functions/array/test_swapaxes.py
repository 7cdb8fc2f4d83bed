import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.functions.array import swapaxes
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (shape, axis1, axis2)
                ((3, 4, 2), 0, 2),
                ((3, 4), -1, 0),
                ((2, 3, 4), 1, 1),
                ((2, 3, 4, 2), -3, 3),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSwapaxes(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis1, self.axis2 = self.case

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.swapaxes(x, self.axis1, self.axis2),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.swapaxes(x, self.axis1, self.axis2),)


def test_module_path():
    x = numpy.zeros((2, 3), numpy.float32)
    (y,) = swapaxes.Swapaxes(0, 1).apply((x,))
    assert y.shape == (3, 2)


@pytest.mark.parametrize(("axis1", "axis2"), [(2, 0), (0, -3)])
def test_axis_out_of_range(axis1, axis2):
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.swapaxes(x, axis1, axis2)
