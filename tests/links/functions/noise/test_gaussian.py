import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.noise import gaussian
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestGaussian(testing.FunctionTestCase):
    def setUp(self):
        self.eps = numpy.random.standard_normal(self.shape).astype(self.dtype)
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 5e-2}

    def generate_inputs(self):
        mean = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        ln_var = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return mean, ln_var

    def forward(self, inputs, device):
        mean, ln_var = inputs
        return (gaussian.gaussian(mean, ln_var, eps=device.send(self.eps)),)

    def forward_expected(self, inputs):
        mean, ln_var = (a.astype(numpy.float64) for a in inputs)
        y = mean + numpy.exp(ln_var / 2) * self.eps
        return (y.astype(self.dtype),)


def test_samples_have_the_given_moments():
    mean = numpy.full(200_000, 3.0)
    ln_var = numpy.full(200_000, numpy.log(4.0))
    y = gaussian.gaussian(mean, ln_var).array
    assert abs(y.mean() - 3.0) < 0.02
    assert abs(y.std() - 2.0) < 0.02


def test_return_eps_and_sampling_in_test_mode():
    mean = numpy.zeros((2, 3), numpy.float32)
    ln_var = numpy.zeros((2, 3), numpy.float32)
    with chainer.using_config("train", False):
        y, eps = gaussian.gaussian(mean, ln_var, return_eps=True)
    assert eps.dtype == numpy.float32
    assert eps.shape == (2, 3)
    numpy.testing.assert_array_equal(y.array, eps)


def test_gradients():
    mean = chainer.Variable(numpy.zeros(3))
    ln_var = chainer.Variable(numpy.log(numpy.array([1.0, 4.0, 9.0])))
    eps = numpy.array([1.0, -1.0, 2.0])
    y = gaussian.gaussian(mean, ln_var, eps=eps)
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_allclose(mean.grad, [1.0, 1.0, 1.0])
    numpy.testing.assert_allclose(ln_var.grad, [0.5, -1.0, 3.0])


def test_mismatched_shapes_are_invalid():
    with pytest.raises(type_check.InvalidType):
        gaussian.gaussian(numpy.zeros(3, numpy.float32), numpy.zeros(2, numpy.float32))


def test_mismatched_dtypes_are_invalid():
    with pytest.raises(type_check.InvalidType):
        gaussian.gaussian(numpy.zeros(3, numpy.float32), numpy.zeros(3, numpy.float64))


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        gaussian.gaussian(numpy.zeros(3, numpy.int32), numpy.zeros(3, numpy.int32))


def test_unknown_keyword_is_rejected():
    with pytest.raises(TypeError, match="unexpected"):
        gaussian.gaussian(
            numpy.zeros(3, numpy.float32), numpy.zeros(3, numpy.float32), noise=1
        )
