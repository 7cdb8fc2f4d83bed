import numpy
import pytest

from chainer import testing
from chainer.functions.activation import swish
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shapes": [
                ((4, 3), (3,)),
                ((4, 3), ()),
                ((4, 3, 2), (3,)),
                ((4, 3, 2), (3, 2)),
                ((5,), ()),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSwish(testing.FunctionTestCase):
    def setUp(self):
        self.x_shape, self.beta_shape = self.shapes
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-2, 2, self.x_shape).astype(self.dtype)
        beta = numpy.random.uniform(-2, 2, self.beta_shape).astype(self.dtype)
        return x, beta

    def forward(self, inputs, device):
        x, beta = inputs
        return (swish.swish(x, beta),)

    def forward_expected(self, inputs):
        x, beta = inputs
        x64 = x.astype(numpy.float64)
        bshape = (1, *beta.shape) + (1,) * (x.ndim - 1 - beta.ndim)
        bx = beta.astype(numpy.float64).reshape(bshape) * x64
        return ((x64 / (1 + numpy.exp(-bx))).astype(self.dtype),)


def test_zero_beta_halves_the_input():
    x = numpy.array([[-2.0, 1.0, 4.0]], numpy.float32)
    y = swish.swish(x, numpy.zeros(3, numpy.float32))
    numpy.testing.assert_allclose(y.array, x / 2)


@pytest.mark.parametrize(
    ("x_shape", "beta_shape"), [((4, 3), (2,)), ((3,), (3,)), ((4, 3), (3, 1))]
)
def test_mismatched_shapes_are_invalid(x_shape, beta_shape):
    x = numpy.zeros(x_shape, numpy.float32)
    beta = numpy.zeros(beta_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        swish.swish(x, beta)


def test_mixed_dtypes_are_invalid():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        swish.swish(x, numpy.zeros((3,), numpy.float16))
