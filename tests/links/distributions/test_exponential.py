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
class TestExponential(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Exponential
        self.scipy_dist = stats.expon
        self.support = "positive"
        self.test_targets = {
            "batch_shape",
            "cdf",
            "entropy",
            "event_shape",
            "icdf",
            "log_cdf",
            "log_prob",
            "log_survival",
            "mean",
            "prob",
            "sample",
            "stddev",
            "support",
            "survival",
            "variance",
        }
        lam = numpy.exp(numpy.random.uniform(-1, 1, self.shape)).astype(self.dtype)
        self.params = {"lam": lam}
        self.scipy_params = {"scale": 1 / lam}

    def sample_for_test(self):
        return numpy.random.uniform(0.1, 3, self.sample_shape + self.shape).astype(
            self.dtype
        )


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_gradients(dtype, shape):
    lam = numpy.random.uniform(0.5, 2, shape).astype(dtype)
    x = numpy.random.uniform(0.1, 2, (2, *shape)).astype(dtype)
    q = numpy.random.uniform(0.2, 0.8, shape).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    g = numpy.random.normal(size=shape).astype(dtype)

    def f(lam):
        d = distributions.Exponential(lam)
        return d.log_prob(x), d.cdf(x), d.entropy, d.icdf(q), d.survival_function(x)

    tol = 5e-2 if dtype == numpy.float16 else 1e-3
    opts = {"dtype": numpy.float64, "atol": tol, "rtol": tol}
    gys = (gy, gy, g, g, gy)
    gradient_check.check_backward(f, lam, gys, **opts)
    gradient_check.check_double_backward(f, lam, gys, g, **opts)


def test_sample_is_reparameterized():
    lam = numpy.random.uniform(0.5, 2, 3)

    def f(lam):
        numpy.random.seed(5)
        return distributions.Exponential(lam).sample(4)

    gradient_check.check_backward(f, lam, numpy.random.normal(size=(4, 3)))


def test_outside_support():
    d = distributions.Exponential(numpy.array([2.0], numpy.float32))
    x = numpy.array([-1.0], numpy.float32)
    assert numpy.isneginf(d.log_prob(x).array[0])
    assert d.cdf(x).array[0] == 0
    assert d.survival_function(x).array[0] == 1


def test_mode():
    d = distributions.Exponential(numpy.array([2.0, 3.0], numpy.float32))
    testing.assert_allclose(d.mode.array, [0, 0])


def test_kl_divergence(kl_monte_carlo):
    d1 = distributions.Exponential(numpy.random.uniform(0.5, 2, 3))
    d2 = distributions.Exponential(numpy.random.uniform(0.5, 2, 3))
    kl_monte_carlo(d1, d2)

    def f(l1, l2):
        return chainer.kl_divergence(
            distributions.Exponential(l1), distributions.Exponential(l2)
        )

    params = (d1.lam.array, d2.lam.array)
    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_parameters():
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Exponential(numpy.ones(2, numpy.int32))
