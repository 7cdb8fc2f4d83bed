import numpy
import pytest
from scipy import stats

import chainer
from chainer import distributions
from chainer import gradient_check
from chainer import testing


def _scale_tril(shape, d, dtype=numpy.float64):
    lower = numpy.tril(numpy.random.normal(scale=0.3, size=(*shape, d, d)), -1)
    diag = numpy.random.uniform(0.7, 1.5, (*shape, d))
    return (lower + diag[..., None] * numpy.eye(d)).astype(dtype)


@testing.parameterize(
    *testing.product(
        {
            "shape": [(2,), ()],
            "is_variable": [True, False],
            "sample_shape": [(3,), ()],
            "dtype": [numpy.float32],
        }
    ),
    {"shape": (2,), "is_variable": True, "sample_shape": (2,), "dtype": numpy.float64},
)
@testing.fix_random()
class TestMultivariateNormal(testing.distribution_unittest):
    scipy_onebyone = True

    def setUp_configure(self):
        self.dist = distributions.MultivariateNormal
        self.scipy_dist = stats.multivariate_normal
        self.event_shape = (3,)
        self.test_targets = {
            "batch_shape",
            "entropy",
            "event_shape",
            "log_prob",
            "prob",
            "sample",
            "support",
        }
        loc = numpy.random.uniform(-1, 1, (*self.shape, 3)).astype(self.dtype)
        scale_tril = _scale_tril(self.shape, 3, self.dtype)
        cov = numpy.matmul(scale_tril, numpy.swapaxes(scale_tril, -1, -2))
        self.params = {"loc": loc, "scale_tril": scale_tril}
        self.scipy_params = {"mean": loc, "cov": cov}

    def sample_for_test(self):
        return numpy.random.normal(size=self.sample_shape + self.shape + (3,)).astype(
            self.dtype
        )


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_moments(dtype):
    loc = numpy.random.normal(size=(2, 3)).astype(dtype)
    scale_tril = _scale_tril((2,), 3, dtype)
    d = distributions.MultivariateNormal(loc, scale_tril=scale_tril)
    cov = numpy.matmul(
        scale_tril.astype(numpy.float64),
        numpy.swapaxes(scale_tril, -1, -2).astype(numpy.float64),
    )
    tol = 2e-2 if dtype == numpy.float16 else 1e-5
    testing.assert_allclose(d.covariance.array, cov, atol=tol, rtol=tol)
    testing.assert_allclose(
        d.variance.array, numpy.diagonal(cov, 0, -2, -1), atol=tol, rtol=tol
    )
    testing.assert_allclose(d.mean.array, loc)
    y = d.log_prob(loc)
    assert y.dtype == dtype
    expected = [
        stats.multivariate_normal.logpdf(m, m, c) for m, c in zip(loc, cov, strict=True)
    ]
    testing.assert_allclose(y.array, expected, atol=5 * tol, rtol=5 * tol)


def test_upper_triangle_is_ignored():
    loc = numpy.zeros(3)
    scale_tril = _scale_tril((), 3)
    full = scale_tril + numpy.triu(numpy.ones((3, 3)), 1)
    x = numpy.random.normal(size=(4, 3))
    d1 = distributions.MultivariateNormal(loc, scale_tril=scale_tril)
    d2 = distributions.MultivariateNormal(loc, scale_tril=full)
    testing.assert_allclose(d1.log_prob(x).array, d2.log_prob(x).array)
    testing.assert_allclose(d1.covariance.array, d2.covariance.array)


def test_gradients():
    loc = numpy.random.normal(size=(2, 3))
    scale_tril = _scale_tril((2,), 3)
    x = numpy.random.normal(size=(4, 2, 3))
    gy = numpy.random.normal(size=(4, 2))
    g = numpy.random.normal(size=(2,))
    gc = numpy.random.normal(size=(2, 3, 3))

    def f(loc, scale_tril):
        d = distributions.MultivariateNormal(loc, scale_tril=scale_tril)
        return d.log_prob(x), d.entropy, d.covariance

    gradient_check.check_backward(f, (loc, scale_tril), (gy, g, gc))
    gradient_check.check_double_backward(
        f, (loc, scale_tril), (gy, g, gc), (loc, scale_tril)
    )


def test_sample_is_reparameterized():
    loc = numpy.random.normal(size=(2, 3))
    scale_tril = _scale_tril((2,), 3)

    def f(loc, scale_tril):
        numpy.random.seed(29)
        return distributions.MultivariateNormal(loc, scale_tril=scale_tril).sample(4)

    gy = numpy.random.normal(size=(4, 2, 3))
    gradient_check.check_backward(f, (loc, scale_tril), gy)


def test_kl_divergence(kl_monte_carlo):
    def make():
        return distributions.MultivariateNormal(
            numpy.random.normal(size=(2, 3)), scale_tril=_scale_tril((2,), 3)
        )

    d1, d2 = make(), make()
    kl_monte_carlo(d1, d2)
    testing.assert_allclose(chainer.kl_divergence(d1, d1).array, 0, atol=1e-10)

    def f(m1, l1, m2, l2):
        return chainer.kl_divergence(
            distributions.MultivariateNormal(m1, scale_tril=l1),
            distributions.MultivariateNormal(m2, scale_tril=l2),
        )

    params = (d1.loc.array, d1.scale_tril.array, d2.loc.array, d2.scale_tril.array)
    gy = numpy.random.normal(size=2)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_arguments():
    loc = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(ValueError, match="scale_tril"):
        distributions.MultivariateNormal(loc)
    with pytest.raises(ValueError, match="shape"):
        distributions.MultivariateNormal(
            loc, scale_tril=numpy.ones((2, 2, 2), numpy.float32)
        )
    with pytest.raises(TypeError, match="unexpected"):
        distributions.MultivariateNormal(loc, scale=loc)
