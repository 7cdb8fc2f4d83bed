import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"shape": [(3, 2), ()], "in_type": _FLOATS, "out_type": _FLOATS})
)
@testing.inject_backend_tests(None, [{}])
class TestCast(testing.FunctionTestCase):
    def setUp(self):
        if numpy.float16 in (self.in_type, self.out_type):
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            # A float16 output rounds away a small finite-difference step;
            # cast is linear, so a coarse step is exact.
            options = {"eps": 2.0**-3, "atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = options
            self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.in_type),)

    def forward(self, inputs, device):
        (x,) = inputs
        y = functions.cast(x, self.out_type)
        assert y.dtype == self.out_type
        return (y,)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (x.astype(self.out_type),)


def test_same_dtype_is_identity():
    x = numpy.zeros(3, numpy.float32)
    y = functions.cast(x, "f")
    assert isinstance(y, chainer.Variable)
    assert y.array is x


def test_integer_target():
    x = numpy.array([1.5, -2.5], numpy.float32)
    y = functions.cast(x, numpy.int32)
    assert y.dtype == numpy.int32
    numpy.testing.assert_array_equal(y.array, [1, -2])


def test_bad_dtype():
    x = numpy.zeros(3, numpy.float32)
    with pytest.raises(TypeError):
        functions.cast(x, "not a dtype")


@pytest.mark.parametrize("in_type", [numpy.bool_, numpy.uint8, numpy.int64])
@pytest.mark.parametrize("out_type", [numpy.bool_, numpy.int8, numpy.float32])
def test_non_float_input(in_type, out_type):
    x = numpy.array([[0, 1, 2]]).astype(in_type)
    y = functions.cast(x, out_type)
    assert y.dtype == out_type
    numpy.testing.assert_array_equal(y.array, x.astype(out_type))


def test_int_to_float_to_int_chain():
    x = chainer.Variable(numpy.array([3, 4], numpy.int32))
    y = functions.cast(functions.cast(x, numpy.float64) * 2.0, numpy.int64)
    numpy.testing.assert_array_equal(y.array, [6, 8])


def test_integer_input_gets_no_gradient():
    x = chainer.Variable(numpy.arange(3, dtype=numpy.int32))
    y = functions.cast(x, numpy.float32) * 2.0
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    assert x.grad is None
