import numpy
import pytest

from chainer import testing
from chainer.functions.activation import prelu
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
                ((2, 3, 2, 2), (3,)),
                ((5,), ()),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestPReLU(testing.FunctionTestCase):
    def setUp(self):
        self.x_shape, self.w_shape = self.shapes
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        # Keep away from the kink at 0.
        x[abs(x) < 0.1] = 0.5
        W = numpy.random.uniform(-1, 1, self.w_shape).astype(self.dtype)
        return x, W

    def forward(self, inputs, device):
        x, W = inputs
        return (prelu.prelu(x, W),)

    def forward_expected(self, inputs):
        x, W = inputs
        y = x.copy()
        for idx in numpy.ndindex(x.shape):
            if x[idx] < 0:
                y[idx] = x[idx] * W[idx[1 : 1 + W.ndim]]
        return (y,)


@pytest.mark.parametrize(
    ("x_shape", "w_shape"), [((4, 3), (2,)), ((3,), (3,)), ((4, 3), (3, 1))]
)
def test_mismatched_shapes_are_invalid(x_shape, w_shape):
    x = numpy.zeros(x_shape, numpy.float32)
    W = numpy.zeros(w_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        prelu.prelu(x, W)


def test_mixed_dtypes_are_invalid():
    x = numpy.zeros((2, 3), numpy.float32)
    W = numpy.zeros((3,), numpy.float64)
    with pytest.raises(type_check.InvalidType):
        prelu.prelu(x, W)
