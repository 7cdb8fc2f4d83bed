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
class TestLaplace(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Laplace
        self.scipy_dist = stats.laplace
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
        loc = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        scale = numpy.exp(numpy.random.uniform(-1, 0.5, self.shape)).astype(self.dtype)
        self.params = {"loc": loc, "scale": scale}
        self.scipy_params = {"loc": loc, "scale": scale}

    def sample_for_test(self):
        return numpy.random.normal(size=self.sample_shape + self.shape).astype(
            self.dtype
        )


def _params(shape, dtype=numpy.float64):
    loc = numpy.random.uniform(-1, 1, shape).astype(dtype)
    scale = numpy.random.uniform(0.5, 1.5, shape).astype(dtype)
    return loc, scale


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_gradients(dtype, shape):
    loc, scale = _params(shape, dtype)
    # Away from the kink at x = loc, where the density is not differentiable.
    x = (loc + numpy.where(numpy.random.rand(2, *shape) > 0.5, 1, -1) * 0.7).astype(
        dtype
    )
    q = numpy.array(numpy.random.choice([0.25, 0.75], size=shape), dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    g = numpy.random.normal(size=shape).astype(dtype)

    def f(loc, scale):
        d = distributions.Laplace(loc, scale)
        return d.log_prob(x), d.cdf(x), d.entropy, d.icdf(q), d.stddev

    tol = 5e-2 if dtype == numpy.float16 else 1e-3
    opts = {"dtype": numpy.float64, "atol": tol, "rtol": tol}
    gys = (gy, gy, g, g, g)
    gradient_check.check_backward(f, (loc, scale), gys, **opts)
    gradient_check.check_double_backward(f, (loc, scale), gys, (g, g), **opts)


def test_sample_is_reparameterized():
    loc, scale = _params((3,))

    def f(loc, scale):
        numpy.random.seed(13)
        return distributions.Laplace(loc, scale).sample(4)

    gradient_check.check_backward(f, (loc, scale), numpy.random.normal(size=(4, 3)))


def test_mode():
    loc, scale = _params((2,), numpy.float32)
    testing.assert_allclose(distributions.Laplace(loc, scale).mode.array, loc)


def test_kl_divergence(kl_monte_carlo):
    d1 = distributions.Laplace(*_params((3,)))
    d2 = distributions.Laplace(*_params((3,)))
    kl_monte_carlo(d1, d2)

    def f(m1, s1, m2, s2):
        return chainer.kl_divergence(
            distributions.Laplace(m1, s1), distributions.Laplace(m2, s2)
        )

    params = _params((3,)) + _params((3,))
    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_parameters():
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Laplace(numpy.zeros(2, numpy.int32), numpy.ones(2, numpy.int32))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_standard_cdf_and_icdf_helpers(dtype):
    # Chainer's private helpers of the standard Laplace distribution.
    x = numpy.random.normal(size=(2, 3)).astype(dtype)
    y = distributions.laplace._laplace_cdf(x)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, stats.laplace.cdf(x), rtol=1e-5)
    u = numpy.random.uniform(0.02, 0.98, (2, 3)).astype(dtype)
    z = distributions.laplace._laplace_icdf(u)
    numpy.testing.assert_allclose(z.array, stats.laplace.ppf(u), rtol=1e-4)
    gy = numpy.random.normal(size=(2, 3)).astype(dtype)
    gradient_check.check_backward(
        distributions.laplace._laplace_cdf, x, gy, atol=1e-2, rtol=1e-2
    )
