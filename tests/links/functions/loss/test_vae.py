import math

import numpy
import pytest

from chainer import testing
from chainer.functions.loss import vae
from chainer.utils import type_check

_PARAMS = testing.product(
    {
        "shape": [(3, 4), (), (2, 3, 2)],
        "reduce": ["sum", "no"],
        "dtype": [numpy.float16, numpy.float32, numpy.float64],
    }
)


class _Tolerances:
    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def _uniform(self, low=-1, high=1):
        return numpy.random.uniform(low, high, self.shape).astype(self.dtype)

    def _reduce(self, loss):
        loss = loss.sum() if self.reduce == "sum" else loss
        return (numpy.asarray(loss, dtype=self.dtype),)


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestGaussianKLDivergence(_Tolerances, testing.FunctionTestCase):
    def generate_inputs(self):
        return self._uniform(), self._uniform()

    def forward(self, inputs, device):
        mean, ln_var = inputs
        return (vae.gaussian_kl_divergence(mean, ln_var, self.reduce),)

    def forward_expected(self, inputs):
        mean, ln_var = (v.astype(numpy.float64) for v in inputs)
        loss = 0.5 * (mean**2 + numpy.exp(ln_var) - ln_var - 1)
        return self._reduce(loss)


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestBernoulliNLL(_Tolerances, testing.FunctionTestCase):
    def generate_inputs(self):
        return self._uniform(0, 1), self._uniform(-3, 3)

    def forward(self, inputs, device):
        x, y = inputs
        return (vae.bernoulli_nll(x, y, self.reduce),)

    def forward_expected(self, inputs):
        x, y = (v.astype(numpy.float64) for v in inputs)
        p = 1 / (1 + numpy.exp(-y))
        return self._reduce(-(x * numpy.log(p) + (1 - x) * numpy.log(1 - p)))


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestGaussianNLL(_Tolerances, testing.FunctionTestCase):
    def generate_inputs(self):
        return self._uniform(), self._uniform(), self._uniform()

    def forward(self, inputs, device):
        x, mean, ln_var = inputs
        return (vae.gaussian_nll(x, mean, ln_var, self.reduce),)

    def forward_expected(self, inputs):
        x, mean, ln_var = (v.astype(numpy.float64) for v in inputs)
        var = numpy.exp(ln_var)
        loss = 0.5 * numpy.log(2 * math.pi * var) + (x - mean) ** 2 / (2 * var)
        return self._reduce(loss)


def test_invalid_reduce():
    x = numpy.zeros(3, "f")
    for call in (
        lambda: vae.gaussian_kl_divergence(x, x, reduce="mean"),
        lambda: vae.bernoulli_nll(x, x, reduce="mean"),
        lambda: vae.gaussian_nll(x, x, x, reduce="mean"),
    ):
        with pytest.raises(ValueError, match="reduce"):
            call()


def test_shape_mismatch():
    a = numpy.zeros((2, 3), "f")
    b = numpy.zeros((2, 4), "f")
    with pytest.raises(type_check.InvalidType):
        vae.gaussian_kl_divergence(a, b)
    with pytest.raises(type_check.InvalidType):
        vae.gaussian_nll(a, a, b)


def test_int_input():
    with pytest.raises(type_check.InvalidType):
        vae.bernoulli_nll(numpy.zeros(3, "f"), numpy.zeros(3, "i"))
