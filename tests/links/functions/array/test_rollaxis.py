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
                # (shape, axis, start)
                ((2, 3, 4), 2, 0),
                ((2, 3, 4), 0, 3),
                ((2, 3, 4), 0, 2),
                ((2, 3, 4), -1, 1),
                ((2, 3, 4), 1, -1),
                ((2, 3, 4), 1, 1),
                ((3,), 0, 1),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestRollaxis(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis, self.start = self.case

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.rollaxis(x, self.axis, self.start),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.rollaxis(x, self.axis, self.start),)


def test_default_start():
    x = numpy.zeros((2, 3, 4), numpy.float32)
    assert functions.rollaxis(x, 2).shape == (4, 2, 3)


@pytest.mark.parametrize(("axis", "start"), [(3, 0), (-4, 0), (0, 4), (0, -4)])
def test_invalid_axis(axis, start):
    x = numpy.zeros((2, 3, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.rollaxis(x, axis, start)
