import numpy
import pytest

from chainer import testing
from chainer.functions.normalization import local_response_normalization as lrn
from chainer.utils import type_check


def _lrn(x, n, k, alpha, beta):
    x = x.astype(numpy.float64)
    half = n // 2
    s = numpy.zeros_like(x)
    for i in range(x.shape[1]):
        lo, hi = max(0, i - half), min(x.shape[1], i + half + 1)
        s[:, i] = (x[:, lo:hi] ** 2).sum(axis=1)
    return x / (k + alpha * s) ** beta


@testing.parameterize(
    *testing.product(
        {
            "shape": [(2, 7, 3), (3, 4), (2, 2, 2, 2)],
            "params": [(5, 2, 1e-4, 0.75), (3, 1, 0.5, 0.6), (4, 1.5, 0.3, 1.0)],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestLocalResponseNormalization(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (lrn.local_response_normalization(x, *self.params),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_lrn(x, *self.params).astype(self.dtype),)


def test_default_parameters():
    x = numpy.random.uniform(-1, 1, (2, 8)).astype(numpy.float32)
    y = lrn.local_response_normalization(x)
    numpy.testing.assert_allclose(y.array, _lrn(x, 5, 2, 1e-4, 0.75), rtol=1e-6)


@pytest.mark.parametrize(
    "x", [numpy.zeros(3, numpy.float32), numpy.zeros((2, 3), numpy.int32)]
)
def test_invalid_types(x):
    with pytest.raises(type_check.InvalidType):
        lrn.local_response_normalization(x)


def test_catalogue():
    import chainer.functions as F

    assert F.local_response_normalization is lrn.local_response_normalization
