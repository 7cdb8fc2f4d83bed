import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.functions.array import flip as flip_module
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [((3,), 0), ((3, 2), 1), ((3, 2), -2), ((2, 3, 4), 2)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestFlip(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.flip(x, self.axis),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.flip(x, self.axis).copy(),)


@pytest.mark.parametrize(("shape", "axis"), [((), 0), ((3, 2), 2), ((3, 2), -3)])
def test_invalid(shape, axis):
    x = numpy.zeros(shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.flip(x, axis)


def test_axis_not_int():
    x = numpy.zeros((3, 2), numpy.float32)
    with pytest.raises(TypeError, match="axis must be int"):
        functions.flip(x, None)


@pytest.mark.parametrize(
    ("shape", "axis"), [((3,), 0), ((2, 3, 4), 1), ((2, 3, 4), -1)]
)
def test_flip_array_helper(shape, axis):
    x = numpy.arange(numpy.prod(shape)).reshape(shape)
    numpy.testing.assert_array_equal(flip_module._flip(x, axis), numpy.flip(x, axis))
