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
            "shape": [(2,), ()],
            "is_variable": [True, False],
            "sample_shape": [(3,), ()],
            "dtype": [numpy.float32],
        }
    ),
    {"shape": (2,), "is_variable": True, "sample_shape": (2,), "dtype": numpy.float64},
)
@testing.fix_random()
class TestDirichlet(testing.distribution_unittest):
    scipy_onebyone = True

    def setUp_configure(self):
        self.dist = distributions.Dirichlet
        self.scipy_dist = stats.dirichlet
        self.support = "[0, 1]"
        self.event_shape = (3,)
        # SciPy's dirichlet.logpdf takes the components on the first axis;
        # log_prob is compared below instead.
        self.test_targets = {
            "batch_shape",
            "entropy",
            "event_shape",
            "mean",
            "sample",
            "support",
            "variance",
        }
        alpha = numpy.random.uniform(0.5, 3, (*self.shape, 3)).astype(self.dtype)
        self.params = {"alpha": alpha}
        self.scipy_params = {"alpha": alpha}

    def sample_for_test(self):
        return numpy.random.dirichlet(
            numpy.ones(3), self.sample_shape + self.shape
        ).astype(self.dtype)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(2,), ()])
def test_log_prob(dtype, shape):
    alpha = numpy.random.uniform(0.5, 3, (*shape, 3)).astype(dtype)
    x = numpy.random.dirichlet(numpy.ones(3), (4, *shape)).astype(dtype)
    y = distributions.Dirichlet(alpha).log_prob(x)
    assert y.dtype == dtype
    assert y.shape == (4, *shape)
    expected = numpy.empty((4, *shape))
    for i in numpy.ndindex(4, *shape):
        xi = x[i].astype(numpy.float64)
        expected[i] = stats.dirichlet.logpdf(xi / xi.sum(), alpha[i[1:]])
    tol = 5e-2 if dtype == numpy.float16 else 1e-4
    testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)


def test_covariance():
    alpha = numpy.random.uniform(0.5, 3, (2, 3))
    cov = distributions.Dirichlet(alpha).covariance.array
    for a, c in zip(alpha, cov, strict=True):
        a0 = a.sum()
        expected = (numpy.diag(a) * a0 - numpy.outer(a, a)) / (a0**2 * (a0 + 1))
        testing.assert_allclose(c, expected)
        testing.assert_allclose(numpy.diag(c), stats.dirichlet.var(a))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_gradients(dtype):
    alpha = numpy.random.uniform(1, 3, (2, 3)).astype(dtype)
    x = numpy.random.dirichlet(numpy.ones(3), (4, 2)).astype(dtype)
    gy = numpy.random.normal(size=(4, 2)).astype(dtype)
    g = numpy.random.normal(size=(2,)).astype(dtype)
    gm = numpy.random.normal(size=(2, 3)).astype(dtype)

    def f(alpha):
        d = distributions.Dirichlet(alpha)
        return d.log_prob(x), d.entropy, d.mean, d.variance

    opts = {"dtype": numpy.float64, "atol": 1e-3, "rtol": 1e-3}
    gradient_check.check_backward(f, alpha, (gy, g, gm, gm), **opts)
    gradient_check.check_double_backward(f, alpha, (gy, g, gm, gm), gm, **opts)


def test_kl_divergence(kl_monte_carlo):
    d1 = distributions.Dirichlet(numpy.random.uniform(1, 3, (2, 3)))
    d2 = distributions.Dirichlet(numpy.random.uniform(1, 3, (2, 3)))
    kl_monte_carlo(d1, d2)

    def f(a1, a2):
        return chainer.kl_divergence(
            distributions.Dirichlet(a1), distributions.Dirichlet(a2)
        )

    params = (d1.alpha.array, d2.alpha.array)
    gy = numpy.random.normal(size=2)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_arguments():
    with pytest.raises(ValueError, match="components"):
        distributions.Dirichlet(numpy.float32(1.0))
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Dirichlet(numpy.ones(3, numpy.int32))
