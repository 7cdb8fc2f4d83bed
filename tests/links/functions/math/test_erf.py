import math

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import erf
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]
_reference = numpy.vectorize(math.erf, otypes=[numpy.float64])


@testing.parameterize(
    *testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS, "scale": [1.0, 4.0]})
)
@testing.inject_backend_tests(None, [{}])
class TestErf(testing.FunctionTestCase):
    # scale 4 reaches past the split between the series and the fraction.

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        x = numpy.random.uniform(-self.scale, self.scale, self.shape)
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        return (erf.erf(inputs[0]),)

    def forward_expected(self, inputs):
        return (_reference(inputs[0]).astype(self.dtype),)


@pytest.mark.parametrize("dtype", _FLOATS)
def test_matches_the_math_module_to_the_last_bits(dtype):
    finfo = numpy.finfo(dtype)
    x = numpy.concatenate(
        [
            numpy.linspace(-8, 8, 4001),
            numpy.linspace(-30, 30, 601),
            numpy.geomspace(finfo.tiny, 8, 200),
            -numpy.geomspace(finfo.tiny, 8, 200),
            [1.5, -1.5, numpy.nextafter(1.5, 0), 0.0],
        ]
    ).astype(dtype)
    expected = _reference(x)
    y = erf.erf(x).array.astype(numpy.float64)
    # Relative error, where the result is a normal number of the dtype.
    normal = numpy.abs(expected) >= finfo.tiny
    err = numpy.abs(y - expected)[normal] / numpy.abs(expected)[normal]
    # A few ulp at most; the bound is loose.
    assert err.max() <= (4 if dtype == numpy.float64 else 1) * float(finfo.eps)


def test_special_values():
    x = numpy.array([0.0, numpy.inf, -numpy.inf, numpy.nan, 1e300, -1e300])
    y = erf.erf(x).array
    numpy.testing.assert_array_equal(y, [0.0, 1.0, -1.0, numpy.nan, 1.0, -1.0])


def test_gradient():
    x = chainer.Variable(numpy.array([-2.0, 0.0, 0.5, 3.0]))
    y = erf.erf(x)
    y.grad = numpy.ones(4)
    y.backward()
    expected = 2 / math.sqrt(math.pi) * numpy.exp(-(x.array**2))
    numpy.testing.assert_allclose(x.grad, expected, rtol=1e-15)


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        erf.erf(numpy.arange(3, dtype=numpy.int32))
