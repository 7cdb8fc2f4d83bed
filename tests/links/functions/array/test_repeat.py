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
                # (shape, repeats, axis)
                ((3,), 2, None),
                ((2, 3), (1, 2, 0), 1),
                ((2, 3), 2, 0),
                ((2, 3), (2, 1), 0),
                ((2, 3), 3, -1),
                ((2, 3), (3,), 1),
                ((2, 3), 0, 1),
                ((), 2, None),
                ((2, 3), (1, 0, 2, 1, 1, 3), None),
                ((2, 3, 2), (2, 1, 3), -2),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestRepeat(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.repeats, self.axis = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.repeat(x, self.repeats, self.axis),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.repeat(x, self.repeats, self.axis),)


def test_list_repeats():
    x = numpy.arange(3, dtype=numpy.float32)
    y = functions.repeat(x, [1, 0, 2])
    numpy.testing.assert_array_equal(y.array, [0, 2, 2])


@pytest.mark.parametrize(
    ("shape", "repeats", "axis"),
    [((2, 3), (1, 2), 1), ((2, 3), (1, 2), None), ((2, 3), 2, 2), ((2, 3), 2, -3)],
)
def test_invalid(shape, repeats, axis):
    x = numpy.zeros(shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.repeat(x, repeats, axis)


def test_negative_repeats():
    x = numpy.zeros((3,), numpy.float32)
    with pytest.raises(ValueError, match="zero or larger"):
        functions.repeat(x, (1, -1, 2))


@pytest.mark.parametrize(
    ("repeats", "axis"), [(1.5, None), ((1, 2.0), 0), (2, 1.0), (2, True)]
)
def test_argument_types(repeats, axis):
    x = numpy.zeros((2, 2), numpy.float32)
    with pytest.raises(TypeError):
        functions.repeat(x, repeats, axis)
