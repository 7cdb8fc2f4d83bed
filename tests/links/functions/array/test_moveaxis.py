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
                ((2, 3, 4), 0, -1),
                ((2, 3, 4), -1, 0),
                ((2, 3, 4), (0, 1), (-1, -2)),
                ((2, 3, 4), (0, 2), (1, 0)),
                ((2, 3, 4, 5), [3, 0], [0, 3]),
                ((3,), 0, 0),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestMoveaxis(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.source, self.destination = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.moveaxis(x, self.source, self.destination),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.moveaxis(x, self.source, self.destination).copy(),)


@pytest.mark.parametrize(
    ("source", "destination", "dtype"),
    [
        (3, 0, "f"),
        (0, -4, "f"),
        (0, 1, "i"),
    ],
)
def test_invalid(source, destination, dtype):
    x = numpy.zeros((2, 3, 4), dtype)
    with pytest.raises(type_check.InvalidType):
        functions.moveaxis(x, source, destination)


@pytest.mark.parametrize(
    ("source", "destination"), [((0, 0), (1, 2)), ((0, 1), (2, -1)), ((0, -3), (0, 1))]
)
def test_repeated_axis(source, destination):
    # As numpy.moveaxis: a ValueError.
    x = numpy.zeros((2, 3, 4), numpy.float32)
    with pytest.raises(ValueError, match="repeated axis"):
        functions.moveaxis(x, source, destination)


def test_length_mismatch():
    x = numpy.zeros((2, 3, 4), numpy.float32)
    with pytest.raises(ValueError, match="same number"):
        functions.moveaxis(x, (0, 1), 2)


def test_axis_not_int():
    x = numpy.zeros((2, 3, 4), numpy.float32)
    with pytest.raises(TypeError, match="ints"):
        functions.moveaxis(x, 0.5, 1)
