import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.normalization import group_normalization
from chainer.utils import type_check

_DTYPES = [
    (numpy.float16, numpy.float16),
    (numpy.float32, numpy.float32),
    (numpy.float64, numpy.float64),
    (numpy.float16, numpy.float32),
]


def _gn(x, groups, gamma, beta, eps=1e-5):
    x64 = x.astype(numpy.float64)
    rows = x64.reshape(x.shape[0] * groups, -1)
    mean = rows.mean(axis=1, keepdims=True)
    var = rows.var(axis=1, keepdims=True)
    x_hat = ((rows - mean) / numpy.sqrt(var + eps)).reshape(x.shape)
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return x_hat * gamma.reshape(shape) + beta.reshape(shape)


@testing.parameterize(
    *testing.product(
        {
            "shape_groups": [
                ((2, 6, 3), 3),
                ((3, 4), 2),
                ((2, 4, 2, 2), 1),
                ((1, 4, 3), 4),
            ],
            "dtypes": _DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestGroupNormalization(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.groups = self.shape_groups
        self.dtype, self.param_dtype = self.dtypes
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 1e-1}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 1e-1}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        c = self.shape[1]
        gamma = numpy.random.uniform(0.5, 1, c).astype(self.param_dtype)
        beta = numpy.random.uniform(-1, 1, c).astype(self.param_dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        return (group_normalization.group_normalization(x, self.groups, gamma, beta),)

    def forward_expected(self, inputs):
        x, gamma, beta = inputs
        y = _gn(x, self.groups, gamma.astype(numpy.float64), beta.astype(numpy.float64))
        return (y.astype(self.dtype),)


def test_only_beta_needs_a_gradient():
    x = numpy.random.uniform(-1, 1, (2, 4, 3))
    beta = chainer.Variable(numpy.zeros(4))
    y = group_normalization.group_normalization(x, 2, numpy.ones(4), beta)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_allclose(beta.grad, [6, 6, 6, 6])


def test_invalid_groups():
    x = numpy.zeros((2, 6, 3), numpy.float32)
    gamma, beta = numpy.ones(6, numpy.float32), numpy.zeros(6, numpy.float32)
    with pytest.raises(ValueError, match="divisible"):
        group_normalization.group_normalization(x, 4, gamma, beta)
    with pytest.raises(TypeError, match="groups"):
        group_normalization.group_normalization(x, 3.0, gamma, beta)
    with pytest.raises(ValueError, match="positive"):
        group_normalization.group_normalization(x, 0, gamma, beta)


@pytest.mark.parametrize(
    ("x_shape", "gamma_shape", "dtype"),
    [
        ((2, 6, 3), (3,), numpy.float32),
        ((6,), (6,), numpy.float32),
        ((2, 6), (6,), numpy.int32),
        ((2, 6), (2, 3), numpy.float32),
    ],
)
def test_invalid_types(x_shape, gamma_shape, dtype):
    x = numpy.zeros(x_shape, dtype)
    gamma, beta = numpy.ones(gamma_shape, numpy.float32), numpy.zeros(gamma_shape)
    with pytest.raises(type_check.InvalidType):
        group_normalization.group_normalization(x, 1, gamma, beta.astype(gamma.dtype))


def test_catalogue():
    import chainer.functions as F

    assert F.group_normalization is group_normalization.group_normalization
