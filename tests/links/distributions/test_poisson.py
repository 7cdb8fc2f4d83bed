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
class TestPoisson(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Poisson
        self.scipy_dist = stats.poisson
        self.continuous = False
        self.support = "non negative integer"
        self.test_targets = {
            "batch_shape",
            "event_shape",
            "log_prob",
            "mean",
            "prob",
            "sample",
            "stddev",
            "support",
            "variance",
        }
        lam = numpy.random.uniform(0.5, 5, self.shape).astype(self.dtype)
        self.params = {"lam": lam}
        self.scipy_params = {"mu": lam}

    def sample_for_test(self):
        return numpy.random.randint(0, 8, self.sample_shape + self.shape).astype(
            self.dtype
        )


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_gradients(dtype, shape):
    lam = numpy.random.uniform(0.5, 3, shape).astype(dtype)
    x = numpy.random.randint(0, 5, (2, *shape)).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    g = numpy.random.normal(size=shape).astype(dtype)

    def f(lam):
        return distributions.Poisson(lam).log_prob(x)

    tol = 5e-2 if dtype == numpy.float16 else 1e-3
    opts = {"dtype": numpy.float64, "atol": tol, "rtol": tol}
    gradient_check.check_backward(f, lam, gy, **opts)
    gradient_check.check_double_backward(f, lam, gy, g, **opts)


def test_integer_points():
    lam = numpy.array([1.5, 4.0], numpy.float32)
    x = numpy.array([[0, 3], [2, 7]], numpy.int64)
    y = distributions.Poisson(lam).log_prob(x)
    assert y.dtype == numpy.float32
    testing.assert_allclose(y.array, stats.poisson.logpmf(x, lam))


def test_kl_divergence(kl_monte_carlo):
    d1 = distributions.Poisson(numpy.random.uniform(0.5, 4, 3))
    d2 = distributions.Poisson(numpy.random.uniform(0.5, 4, 3))
    kl_monte_carlo(d1, d2)

    def f(l1, l2):
        return chainer.kl_divergence(
            distributions.Poisson(l1), distributions.Poisson(l2)
        )

    params = (d1.lam.array, d2.lam.array)
    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_parameters():
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Poisson(numpy.ones(2, numpy.int32))
