import numpy
import pytest

from chainer import testing
from chainer.functions.normalization import layer_normalization
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "shape": [(3, 5), (1, 4), (4, 1)],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestLayerNormalization(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 1e-1}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 1e-1}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        gamma = numpy.random.uniform(0.5, 1, self.shape[1]).astype(self.dtype)
        beta = numpy.random.uniform(-1, 1, self.shape[1]).astype(self.dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        return (layer_normalization.layer_normalization(*inputs),)

    def forward_expected(self, inputs):
        x, gamma, beta = (a.astype(numpy.float64) for a in inputs)
        mean = x.mean(axis=1, keepdims=True)
        var = x.var(axis=1, keepdims=True)
        y = (x - mean) / numpy.sqrt(var + 1e-5) * gamma + beta
        return (y.astype(self.dtype),)


def test_eps():
    x = numpy.array([[1.0, 3.0]])
    y = layer_normalization.layer_normalization(x, numpy.ones(2), numpy.zeros(2), 1.0)
    numpy.testing.assert_allclose(y.array, [[-1 / numpy.sqrt(2), 1 / numpy.sqrt(2)]])


@pytest.mark.parametrize(
    ("x_shape", "gamma_shape", "gamma_dtype"),
    [
        ((2, 3, 4), (3,), numpy.float32),
        ((3,), (3,), numpy.float32),
        ((2, 3), (4,), numpy.float32),
        ((2, 3), (3,), numpy.float64),
    ],
)
def test_invalid_types(x_shape, gamma_shape, gamma_dtype):
    x = numpy.zeros(x_shape, numpy.float32)
    gamma = numpy.ones(gamma_shape, gamma_dtype)
    with pytest.raises(type_check.InvalidType):
        layer_normalization.layer_normalization(x, gamma, numpy.zeros_like(gamma))


def test_catalogue():
    import chainer.functions as F

    assert F.layer_normalization is layer_normalization.layer_normalization
