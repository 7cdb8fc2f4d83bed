import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import sqrt
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]
_PARAMS = testing.product({"shape": [(3, 2), ()], "dtype": _FLOATS})


class _UnaryCase:
    # func, reference and the input range are set by each test class.
    low, high = -1.0, 1.0

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        x = numpy.random.uniform(self.low, self.high, self.shape)
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        return (type(self).func(inputs[0]),)

    def forward_expected(self, inputs):
        y = type(self).reference(inputs[0].astype(numpy.float64))
        return (numpy.asarray(y).astype(self.dtype),)


def _rsqrt(x):
    return 1.0 / numpy.sqrt(x)


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestSqrt(_UnaryCase, testing.FunctionTestCase):
    func = sqrt.sqrt
    reference = numpy.sqrt
    low, high = 0.5, 2.0


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestRsqrt(_UnaryCase, testing.FunctionTestCase):
    func = sqrt.rsqrt
    reference = _rsqrt
    low, high = 0.5, 2.0


@pytest.mark.parametrize("func", [sqrt.sqrt, sqrt.rsqrt])
def test_int_input_is_invalid(func):
    with pytest.raises(type_check.InvalidType):
        func(numpy.arange(3, dtype=numpy.int32))


def test_labels():
    x = chainer.Variable(numpy.full(2, 0.5, numpy.float32))
    for name in ("sqrt", "rsqrt"):
        assert getattr(sqrt, name)(x).creator.label == name
