import warnings

import numpy
import pytest

from chainer import testing
from chainer.functions.activation import softplus
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS, "beta": [1.0, 2.5]})
)
@testing.inject_backend_tests(None, [{}])
class TestSoftplus(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-2, 2, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (softplus.softplus(x, beta=self.beta),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = numpy.log1p(numpy.exp(self.beta * x.astype(numpy.float64))) / self.beta
        return (y.astype(self.dtype),)


@pytest.mark.parametrize("dtype", _FLOATS)
def test_extreme_inputs_are_stable(dtype):
    x = numpy.array([-1000, 0, 1000], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = softplus.softplus(x).array
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y, [0, numpy.log(2), 1000], rtol=1e-3)


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        softplus.softplus(numpy.arange(3, dtype=numpy.int32))
