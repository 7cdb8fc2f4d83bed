import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import exponential
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]
_PARAMS = testing.product({"shape": [(3, 2), ()], "dtype": _FLOATS})


class _UnaryCase:
    # func, reference and the input range are set by each test class.
    low, high = -1.0, 1.0

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 2e-3, "rtol": 2e-3}
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


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestExp(_UnaryCase, testing.FunctionTestCase):
    func = exponential.exp
    reference = numpy.exp
    low, high = -2.0, 2.0


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestLog(_UnaryCase, testing.FunctionTestCase):
    func = exponential.log
    reference = numpy.log
    low, high = 0.5, 2.0


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestLog2(_UnaryCase, testing.FunctionTestCase):
    func = exponential.log2
    reference = numpy.log2
    low, high = 0.5, 2.0


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestLog10(_UnaryCase, testing.FunctionTestCase):
    func = exponential.log10
    reference = numpy.log10
    low, high = 0.5, 2.0


@pytest.mark.parametrize(
    "func", [exponential.exp, exponential.log, exponential.log2, exponential.log10]
)
def test_int_input_is_invalid(func):
    with pytest.raises(type_check.InvalidType):
        func(numpy.arange(3, dtype=numpy.int32))


def test_labels():
    x = chainer.Variable(numpy.full(2, 0.5, numpy.float32))
    for name in ("exp", "log", "log2", "log10"):
        assert getattr(exponential, name)(x).creator.label == name


def test_log_is_the_core_log_node():
    # F.log and Variable arithmetic share one node class.
    x = chainer.Variable(numpy.full(2, 2.0, numpy.float32))
    assert isinstance(exponential.log(x).creator, exponential.Log)


def test_exp_backward_uses_the_retained_output():
    x = chainer.Variable(numpy.array([0.3, -1.2]))
    y = exponential.exp(x)
    assert y.creator._output_indexes_to_retain == (0,)
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp([0.3, -1.2]), rtol=1e-15)
