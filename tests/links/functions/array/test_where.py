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
            "shapes": [
                # (condition, x, y)
                ((3, 4), (3, 4), (3, 4)),
                ((3, 4), (4,), (3, 1)),
                ((), (), ()),
                ((2, 3), (), (2, 3)),
                ((1, 3), (2, 1), ()),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestWhere(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            # Broadcast inputs' gradients are float16 sums (CuPy's reduction
            # order differs from NumPy's).
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        c_shape, x_shape, y_shape = self.shapes
        condition = numpy.random.uniform(-1, 1, c_shape) > 0
        x = numpy.random.uniform(-1, 1, x_shape).astype(self.dtype)
        y = numpy.random.uniform(-1, 1, y_shape).astype(self.dtype)
        return condition, x, y

    def forward(self, inputs, device):
        condition, x, y = inputs
        return (functions.where(condition, x, y),)

    def forward_expected(self, inputs):
        condition, x, y = inputs
        return (numpy.asarray(numpy.where(condition, x, y)),)


def test_condition_array():
    condition = numpy.array([True, False])
    x = chainer.Variable(numpy.array([1, 2], numpy.float32))
    y = chainer.Variable(numpy.array([3, 4], numpy.float32))
    z = functions.where(condition, x, y)
    numpy.testing.assert_array_equal(z.array, [1, 4])
    z.grad = numpy.ones(2, numpy.float32)
    z.backward()
    numpy.testing.assert_array_equal(x.grad, [1, 0])
    numpy.testing.assert_array_equal(y.grad, [0, 1])


@pytest.mark.parametrize(
    ("c", "x", "y"),
    [
        (numpy.ones(3, numpy.float32), numpy.ones(3, "f"), numpy.ones(3, "f")),
        (numpy.ones(3, bool), numpy.ones(3, "f"), numpy.ones(3, "d")),
        (numpy.ones(3, bool), numpy.ones(3, "f"), numpy.ones(2, "f")),
        (numpy.ones(4, bool), numpy.ones(3, "f"), numpy.ones(3, "f")),
    ],
)
def test_invalid(c, x, y):
    with pytest.raises(type_check.InvalidType):
        functions.where(c, x, y)


def test_condition_not_array():
    x = numpy.ones(2, numpy.float32)
    with pytest.raises(TypeError, match="boolean array"):
        functions.where([True, False], x, x)
