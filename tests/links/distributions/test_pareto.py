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
class TestPareto(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Pareto
        self.scipy_dist = stats.pareto
        self.support = "[scale, inf]"
        self.test_targets = {
            "batch_shape",
            "cdf",
            "entropy",
            "event_shape",
            "icdf",
            "log_prob",
            "mean",
            "prob",
            "sample",
            "support",
            "survival",
            "variance",
        }
        scale = numpy.random.uniform(0.5, 1.5, self.shape).astype(self.dtype)
        # alpha > 4 keeps the sample standard deviation a stable statistic.
        alpha = numpy.random.uniform(5, 8, self.shape).astype(self.dtype)
        self.params = {"scale": scale, "alpha": alpha}
        self.scipy_params = {"b": alpha, "scale": scale}

    def sample_for_test(self):
        return numpy.random.uniform(1.6, 4, self.sample_shape + self.shape).astype(
            self.dtype
        )


def _params(shape, dtype=numpy.float64, low_alpha=1.5):
    scale = numpy.random.uniform(0.5, 1.5, shape).astype(dtype)
    alpha = numpy.random.uniform(low_alpha, low_alpha + 2, shape).astype(dtype)
    return scale, alpha


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_gradients(dtype, shape):
    scale, alpha = _params(shape, dtype, low_alpha=2.5)
    x = (scale * numpy.random.uniform(1.2, 3, (2, *shape))).astype(dtype)
    q = numpy.random.uniform(0.2, 0.8, shape).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    g = numpy.random.normal(size=shape).astype(dtype)

    def f(scale, alpha):
        d = distributions.Pareto(scale, alpha)
        return d.log_prob(x), d.cdf(x), d.entropy, d.icdf(q), d.mean, d.variance

    tol = 5e-2 if dtype == numpy.float16 else 1e-3
    opts = {"dtype": numpy.float64, "atol": tol, "rtol": tol}
    gys = (gy, gy, g, g, g, g)
    gradient_check.check_backward(f, (scale, alpha), gys, **opts)
    gradient_check.check_double_backward(f, (scale, alpha), gys, (g, g), **opts)


def test_sample_is_reparameterized():
    scale, alpha = _params((3,))

    def f(scale, alpha):
        numpy.random.seed(19)
        return distributions.Pareto(scale, alpha).sample(4)

    gradient_check.check_backward(f, (scale, alpha), numpy.random.normal(size=(4, 3)))


def test_infinite_moments_and_support():
    scale = numpy.array([1.0, 1.0, 1.0], numpy.float32)
    alpha = numpy.array([0.5, 1.5, 3.0], numpy.float32)
    d = distributions.Pareto(scale, alpha)
    mean, var = d.mean.array, d.variance.array
    assert numpy.isinf(mean[0])
    assert numpy.isfinite(mean[1:]).all()
    assert numpy.isinf(var[:2]).all()
    assert numpy.isfinite(var[2])
    below = numpy.array([0.5, 0.5, 0.5], numpy.float32)
    assert numpy.isneginf(d.log_prob(below).array).all()
    testing.assert_allclose(d.cdf(below).array, 0)
    testing.assert_allclose(d.mode.array, scale)


def test_kl_divergence(kl_monte_carlo):
    scale1, alpha1 = _params((3,))
    scale2, alpha2 = _params((3,))
    scale2 = scale1 * 0.8  # the support of the first inside the second
    d1 = distributions.Pareto(scale1, alpha1)
    d2 = distributions.Pareto(scale2, alpha2)
    kl_monte_carlo(d1, d2)
    assert numpy.isinf(chainer.kl_divergence(d2, d1).array).all()

    def f(s1, a1, s2, a2):
        return chainer.kl_divergence(
            distributions.Pareto(s1, a1), distributions.Pareto(s2, a2)
        )

    params = (scale1, alpha1, scale2, alpha2)
    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_parameters():
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Pareto(numpy.ones(2, numpy.int32), numpy.ones(2, numpy.int32))
