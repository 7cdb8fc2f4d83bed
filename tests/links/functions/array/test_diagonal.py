import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (shape, offset, axis1, axis2)
                ((3, 4), 0, 0, 1),
                ((3, 4), 1, 0, 1),
                ((3, 4), -2, 0, 1),
                ((3, 4), 0, 1, 0),
                ((2, 3, 4), 1, 2, 0),
                ((2, 3, 4), -1, -1, 1),
                ((3, 3), 5, 0, 1),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDiagonal(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.offset, self.axis1, self.axis2 = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.diagonal(x, self.offset, self.axis1, self.axis2),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.diagonal(x, self.offset, self.axis1, self.axis2).copy(),)


def test_gradient_is_zero_off_the_diagonal():
    x = chainer.Variable(numpy.zeros((3, 4), numpy.float32))
    y = functions.diagonal(x, offset=1)
    y.grad = numpy.array([1, 2, 3], numpy.float32)
    y.backward()
    expected = numpy.zeros((3, 4), numpy.float32)
    expected[[0, 1, 2], [1, 2, 3]] = [1, 2, 3]
    numpy.testing.assert_array_equal(x.grad, expected)


@pytest.mark.parametrize(
    ("shape", "axis1", "axis2"),
    [((3,), 0, 1), ((), 0, 1), ((3, 3), 0, 0), ((3, 3), 0, -2), ((3, 3), 0, 2)],
)
def test_invalid(shape, axis1, axis2):
    x = numpy.zeros(shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.diagonal(x, 0, axis1, axis2)
