import numpy
import pytest

from chainer import testing
from chainer.functions.activation import selu
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shape": [(3, 4), ()],
            "dtype": _FLOATS,
            "alpha_scale": [None, (1.0, 2.0)],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSELU(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        # Keep away from 0, where the second derivative jumps.
        x[abs(x) < 0.1] = 0.5
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        if self.alpha_scale is None:
            return (selu.selu(x),)
        alpha, scale = self.alpha_scale
        return (selu.selu(x, alpha=alpha, scale=scale),)

    def forward_expected(self, inputs):
        (x,) = inputs
        alpha, scale = self.alpha_scale or (1.6732632423543772, 1.0507009873554805)
        x64 = x.astype(numpy.float64)
        y = scale * numpy.where(x64 >= 0, x64, alpha * (numpy.exp(x64) - 1))
        return (y.astype(self.dtype),)


def test_self_normalizing_fixed_point():
    # With the default constants, N(0, 1) inputs keep mean 0 and variance 1.
    x = numpy.random.RandomState(0).standard_normal(1_000_000)
    y = selu.selu(x).array
    assert abs(y.mean()) < 1e-2
    assert abs(y.var() - 1) < 1e-2


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        selu.selu(numpy.arange(3, dtype=numpy.int32))
