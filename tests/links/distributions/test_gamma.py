import numpy
import pytest
from scipy import stats

import chainer
from chainer import distributions
from chainer import gradient_check
from chainer import testing


@testing.parameterize(
    *testing.product(
        {
            "shape": [(2, 3), ()],
            "is_variable": [True, False],
            "sample_shape": [(3,), ()],
            "dtype": [numpy.float32],
        }
    ),
    {"shape": (2,), "is_variable": True, "sample_shape": (2,), "dtype": numpy.float64},
)
@testing.fix_random()
class TestGamma(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Gamma
        self.scipy_dist = stats.gamma
        self.support = "positive"
        self.test_targets = {
            "batch_shape",
            "entropy",
            "event_shape",
            "log_prob",
            "mean",
            "prob",
            "sample",
            "stddev",
            "support",
            "variance",
        }
        k = numpy.random.uniform(0.5, 4, self.shape).astype(self.dtype)
        theta = numpy.random.uniform(0.5, 2, self.shape).astype(self.dtype)
        self.params = {"k": k, "theta": theta}
        self.scipy_params = {"a": k, "scale": theta}

    def sample_for_test(self):
        return numpy.random.uniform(0.1, 5, self.sample_shape + self.shape).astype(
            self.dtype
        )


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_gradients(dtype, shape):
    k = numpy.random.uniform(1, 3, shape).astype(dtype)
    theta = numpy.random.uniform(0.5, 2, shape).astype(dtype)
    x = numpy.random.uniform(0.5, 3, (2, *shape)).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    g = numpy.random.normal(size=shape).astype(dtype)

    def f(k, theta):
        d = distributions.Gamma(k, theta)
        return d.log_prob(x), d.entropy, d.variance

    tol = 5e-2 if dtype == numpy.float16 else 1e-3
    opts = {"dtype": numpy.float64, "atol": tol, "rtol": tol}
    gradient_check.check_backward(f, (k, theta), (gy, g, g), **opts)
    gradient_check.check_double_backward(f, (k, theta), (gy, g, g), (g, g), **opts)


def test_outside_support():
    d = distributions.Gamma(numpy.float32(2), numpy.float32(1))
    assert numpy.isneginf(d.log_prob(numpy.array(-1.0, numpy.float32)).array)


def test_kl_divergence(kl_monte_carlo):
    d1 = distributions.Gamma(*numpy.random.uniform(0.8, 3, (2, 3)))
    d2 = distributions.Gamma(*numpy.random.uniform(0.8, 3, (2, 3)))
    kl_monte_carlo(d1, d2)

    def f(k1, t1, k2, t2):
        return chainer.kl_divergence(
            distributions.Gamma(k1, t1), distributions.Gamma(k2, t2)
        )

    params = tuple(numpy.random.uniform(1, 3, 3) for _ in range(4))
    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_parameters():
    with pytest.raises(TypeError, match="one dtype"):
        distributions.Gamma(numpy.ones(2, numpy.float32), numpy.ones(2, numpy.float64))
