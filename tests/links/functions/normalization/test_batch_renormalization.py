import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.normalization import batch_renormalization
from chainer.utils import type_check

_DTYPES = [
    (numpy.float16, numpy.float16),
    (numpy.float32, numpy.float32),
    (numpy.float64, numpy.float64),
    (numpy.float16, numpy.float32),
]


def _renorm(x, gamma, beta, rmax, dmax, running_mean, running_var, eps=2e-5):
    axes = (0, *range(gamma.ndim + 1, x.ndim))
    shape = (1, *gamma.shape) + (1,) * (x.ndim - gamma.ndim - 1)
    x = x.astype(numpy.float64)
    mean = x.mean(axis=axes)
    sigma = numpy.sqrt(x.var(axis=axes) + eps)
    running_sigma = numpy.sqrt(running_var + eps)
    r = numpy.clip(sigma / running_sigma, 1 / rmax, rmax)
    d = numpy.clip((mean - running_mean) / running_sigma, -dmax, dmax)
    x_hat = (x - mean.reshape(shape)) / sigma.reshape(shape)
    y = x_hat * r.reshape(shape) + d.reshape(shape)
    return gamma.reshape(shape) * y + beta.reshape(shape)


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((5, 3), (3,)), ((4, 3, 2), (3,)), ((3, 2, 3, 2), (2, 3))],
            "dtypes": _DTYPES,
            # Far-off running statistics saturate r and d, whose gradients
            # are zero by definition (constants in the paper's backward).
            "saturated": [True, False],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestBatchRenormalization(testing.FunctionTestCase):
    def setUp(self):
        self.x_shape, self.gamma_shape = self.shapes
        self.dtype, self.param_dtype = self.dtypes
        if self.saturated:
            self.rmax, self.dmax = 1.5, 0.3
            sign = numpy.where(numpy.arange(numpy.prod(self.gamma_shape)) % 2, 1, -1)
            self.running_mean = (sign * 60.0).reshape(self.gamma_shape)
            self.running_var = numpy.full(self.gamma_shape, 100.0)
        else:
            self.rmax, self.dmax = 1, 0
            self.running_mean = numpy.random.uniform(-1, 1, self.gamma_shape)
            self.running_var = numpy.random.uniform(0.5, 1, self.gamma_shape)
        self.running_mean = self.running_mean.astype(self.param_dtype)
        self.running_var = self.running_var.astype(self.param_dtype)
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 1e-1}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 1e-1}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        gamma = numpy.random.uniform(0.5, 1, self.gamma_shape)
        beta = numpy.random.uniform(-1, 1, self.gamma_shape)
        return x, gamma.astype(self.param_dtype), beta.astype(self.param_dtype)

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        y = batch_renormalization.batch_renormalization(
            x,
            gamma,
            beta,
            self.rmax,
            self.dmax,
            running_mean=device.send(self.running_mean.copy()),
            running_var=device.send(self.running_var.copy()),
        )
        return (y,)

    def forward_expected(self, inputs):
        x, gamma, beta = inputs
        y = _renorm(
            x,
            gamma.astype(numpy.float64),
            beta.astype(numpy.float64),
            self.rmax,
            self.dmax,
            self.running_mean.astype(numpy.float64),
            self.running_var.astype(numpy.float64),
        )
        return (y.astype(self.dtype),)


def test_statistics_update_only_when_asked():
    x = numpy.random.uniform(-1, 1, (4, 3, 2)).astype(numpy.float32)
    gamma, beta = numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32)
    mean0 = numpy.random.uniform(-1, 1, 3).astype(numpy.float32)
    var0 = numpy.random.uniform(0.5, 1, 3).astype(numpy.float32)
    mean, var = mean0.copy(), var0.copy()
    batch_renormalization.batch_renormalization(
        x, gamma, beta, 2, 1, running_mean=mean, running_var=var
    )
    numpy.testing.assert_array_equal(mean, mean0)
    numpy.testing.assert_array_equal(var, var0)
    batch_renormalization.batch_renormalization(
        x,
        gamma,
        beta,
        2,
        1,
        running_mean=mean,
        running_var=var,
        decay=0.8,
        update_statistics=True,
    )
    x64 = x.astype(numpy.float64)
    numpy.testing.assert_allclose(mean, 0.8 * mean0 + 0.2 * x64.mean(axis=(0, 2)), 1e-6)
    # The running variance is the unbiased batch variance (no eps).
    expected = 0.8 * var0 + 0.2 * x64.var(axis=(0, 2)) * 8 / 7
    numpy.testing.assert_allclose(var, expected, 1e-6)


def test_gradients_treat_r_and_d_as_constants():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (6, 2)))
    gamma = chainer.Variable(numpy.array([1.5, 0.5]))
    beta = chainer.Variable(numpy.zeros(2))
    node = batch_renormalization.BatchRenormalizationFunction(
        mean=numpy.array([0.3, -0.2]), var=numpy.array([0.5, 2.0]), rmax=3, dmax=3
    )
    (y,) = node.apply((x, gamma, beta))
    gy = numpy.random.uniform(-1, 1, (6, 2))
    y.grad = gy
    y.backward()
    r, d = node.r, node.d
    x_hat = (x.array - x.array.mean(axis=0)) / numpy.sqrt(x.array.var(axis=0) + 2e-5)
    numpy.testing.assert_allclose(beta.grad, gy.sum(axis=0))
    numpy.testing.assert_allclose(gamma.grad, (gy * (x_hat * r + d)).sum(axis=0))
    scale = gamma.array * r / numpy.sqrt(x.array.var(axis=0) + 2e-5)
    gx = scale * (gy - (x_hat * (gy * x_hat).sum(axis=0) + gy.sum(axis=0)) / 6)
    numpy.testing.assert_allclose(x.grad, gx)


def test_running_statistics_are_required():
    x = numpy.zeros((2, 3), numpy.float32)
    gamma, beta = numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32)
    with pytest.raises(TypeError, match="running_mean"):
        batch_renormalization.batch_renormalization(x, gamma, beta, 1, 0)
    with pytest.raises(TypeError, match="running_var"):
        batch_renormalization.batch_renormalization(
            x, gamma, beta, 1, 0, running_mean=numpy.zeros(3, numpy.float32)
        )
    with pytest.raises(ValueError, match="shape of gamma"):
        batch_renormalization.batch_renormalization(
            x, gamma, beta, 1, 0, running_mean=numpy.zeros(2), running_var=numpy.ones(3)
        )


def test_invalid_types():
    for dtype, size in ((numpy.float32, 2), (numpy.int32, 3)):
        x = numpy.zeros((2, 3), dtype)
        gamma = numpy.ones(size, numpy.float32)
        beta = numpy.zeros(size, numpy.float32)
        stats = {"running_mean": numpy.zeros(size), "running_var": numpy.ones(size)}
        with pytest.raises(type_check.InvalidType):
            batch_renormalization.batch_renormalization(x, gamma, beta, 1, 0, **stats)


def test_fixed_batch_renormalization_is_deprecated():
    x = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    gamma = numpy.random.uniform(0.5, 1, 3).astype(numpy.float32)
    beta = numpy.random.uniform(-1, 1, 3).astype(numpy.float32)
    mean = numpy.random.uniform(-1, 1, 3).astype(numpy.float32)
    var = numpy.random.uniform(0.5, 1, 3).astype(numpy.float32)
    with pytest.warns(DeprecationWarning, match="fixed_batch_normalization"):
        y = batch_renormalization.fixed_batch_renormalization(x, gamma, beta, mean, var)
    expected = gamma * (x - mean) / numpy.sqrt(var + 2e-5) + beta
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


def test_catalogue():
    import chainer.functions as F

    assert F.batch_renormalization is batch_renormalization.batch_renormalization
    assert (
        F.fixed_batch_renormalization
        is batch_renormalization.fixed_batch_renormalization
    )
