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
class TestLogNormal(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.LogNormal
        self.scipy_dist = stats.lognorm
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
        mu = numpy.random.uniform(-0.5, 0.5, self.shape).astype(self.dtype)
        sigma = numpy.random.uniform(0.2, 0.6, self.shape).astype(self.dtype)
        self.params = {"mu": mu, "sigma": sigma}
        self.scipy_params = {"s": sigma, "scale": numpy.exp(mu)}

    def sample_for_test(self):
        return numpy.random.uniform(0.1, 5, self.sample_shape + self.shape).astype(
            self.dtype
        )


def _params(shape, dtype=numpy.float64):
    mu = numpy.random.uniform(-0.5, 0.5, shape).astype(dtype)
    sigma = numpy.random.uniform(0.3, 1.0, shape).astype(dtype)
    return mu, sigma


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_gradients(dtype, shape):
    mu, sigma = _params(shape, dtype)
    x = numpy.random.uniform(0.5, 2, (2, *shape)).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    g = numpy.random.normal(size=shape).astype(dtype)

    def f(mu, sigma):
        d = distributions.LogNormal(mu, sigma)
        return d.log_prob(x), d.entropy, d.mean, d.variance

    tol = 5e-2 if dtype == numpy.float16 else 1e-3
    opts = {"dtype": numpy.float64, "atol": tol, "rtol": tol}
    gys = (gy, g, g, g)
    gradient_check.check_backward(f, (mu, sigma), gys, **opts)
    gradient_check.check_double_backward(f, (mu, sigma), gys, (g, g), **opts)


def test_sample_is_reparameterized():
    mu, sigma = _params((3,))

    def f(mu, sigma):
        numpy.random.seed(17)
        return distributions.LogNormal(mu, sigma).sample(4)

    gradient_check.check_backward(f, (mu, sigma), numpy.random.normal(size=(4, 3)))


def test_outside_support_and_mode():
    mu, sigma = _params((2,), numpy.float32)
    d = distributions.LogNormal(mu, sigma)
    y = d.log_prob(numpy.array([-1.0, 0.0], numpy.float32)).array
    assert numpy.all(numpy.isneginf(y))
    testing.assert_allclose(d.mode.array, numpy.exp(mu - sigma**2))


def test_kl_divergence(kl_monte_carlo):
    d1 = distributions.LogNormal(*_params((3,)))
    d2 = distributions.LogNormal(*_params((3,)))
    kl_monte_carlo(d1, d2)

    def f(m1, s1, m2, s2):
        return chainer.kl_divergence(
            distributions.LogNormal(m1, s1), distributions.LogNormal(m2, s2)
        )

    params = _params((3,)) + _params((3,))
    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_parameters():
    with pytest.raises(TypeError, match="float dtype"):
        distributions.LogNormal(numpy.zeros(2, numpy.int32), numpy.ones(2, numpy.int32))
