import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import fft
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "method": ["fft", "ifft"],
            "shape": [(4,), (2, 3, 5), (1,)],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestFFT(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        real = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        imag = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return real, imag

    def forward(self, inputs, device):
        return getattr(fft, self.method)(inputs)

    def forward_expected(self, inputs):
        real, imag = inputs
        y = getattr(numpy.fft, self.method)(real + 1j * imag.astype(numpy.float64))
        return y.real.astype(self.dtype), y.imag.astype(self.dtype)


def test_gradient_of_one_part_only():
    real = chainer.Variable(numpy.random.uniform(-1, 1, 4))
    imag = chainer.Variable(numpy.random.uniform(-1, 1, 4))
    yr, _ = fft.fft((real, imag))
    chainer.functions.sum(yr).backward()
    # d sum(Re F x) / d Re x = Re(sum of the columns of F) = [4, 0, 0, 0].
    numpy.testing.assert_allclose(real.grad, [4, 0, 0, 0], atol=1e-12)
    numpy.testing.assert_allclose(imag.grad, [0, 0, 0, 0], atol=1e-12)


def test_ifft_inverts_fft():
    x = (numpy.random.uniform(-1, 1, (2, 6)), numpy.random.uniform(-1, 1, (2, 6)))
    real, imag = fft.ifft(fft.fft(x))
    numpy.testing.assert_allclose(real.array, x[0], atol=1e-12)
    numpy.testing.assert_allclose(imag.array, x[1], atol=1e-12)


def test_exported_as_f():
    assert chainer.functions.fft is fft.fft
    assert chainer.functions.ifft is fft.ifft


@pytest.mark.parametrize(
    ("real", "imag"),
    [
        (numpy.ones(3, "f"), numpy.ones(4, "f")),
        (numpy.ones(3, "f"), numpy.ones(3, "d")),
        (numpy.ones((), "f"), numpy.ones((), "f")),
        (numpy.ones(3, "i"), numpy.ones(3, "i")),
    ],
)
def test_bad_input(real, imag):
    with pytest.raises(type_check.InvalidType):
        fft.fft((real, imag))


def test_bad_method():
    with pytest.raises(ValueError):
        fft.FFT("rfft")
