import numpy
import pytest

from chainer import testing
from chainer.functions.activation import crelu
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shape_axis": [
                ((2, 3), 1),
                ((2, 3), 0),
                ((2, 3), -1),
                ((2, 3, 4), 1),
                ((2, 3, 4), -3),
                ((5,), 0),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestCReLU(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        # Keep away from the kink at 0.
        x[abs(x) < 0.1] = 0.5
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        return (crelu.crelu(x, axis=self.axis),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = numpy.concatenate((numpy.maximum(x, 0), numpy.maximum(-x, 0)), self.axis)
        return (y.astype(self.dtype),)


def test_default_axis_is_one():
    x = numpy.array([[-1.0, 2.0]], numpy.float32)
    numpy.testing.assert_array_equal(crelu.crelu(x).array, [[0, 2, 1, 0]])


@pytest.mark.parametrize(("shape", "axis"), [((2, 3), 2), ((2, 3), -3), ((), 0)])
def test_axis_out_of_range_is_invalid(shape, axis):
    with pytest.raises(type_check.InvalidType):
        crelu.crelu(numpy.zeros(shape, numpy.float32), axis=axis)


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        crelu.crelu(numpy.zeros((2, 3), numpy.int32))


def test_non_integer_axis_is_rejected():
    with pytest.raises(TypeError, match="axis"):
        crelu.crelu(numpy.zeros((2, 3), numpy.float32), axis=1.0)
