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
class TestOneHotCategorical(testing.distribution_unittest):
    scipy_onebyone = True

    def setUp_configure(self):
        self.dist = distributions.OneHotCategorical
        self.scipy_dist = stats.multinomial
        self.continuous = False
        self.support = "{0, 1}"
        self.event_shape = (4,)
        self.test_targets = {
            "batch_shape",
            "entropy",
            "event_shape",
            "log_prob",
            "mean",
            "prob",
            "sample",
            "support",
        }
        p = numpy.random.dirichlet(numpy.ones(4), size=self.shape).astype(self.dtype)
        self.params = {"p": p}
        # SciPy wants rows summing to one in float64.
        p64 = p.astype(numpy.float64)
        self.scipy_params = {"n": 1, "p": p64 / p64.sum(axis=-1, keepdims=True)}

    def sample_for_test(self):
        idx = numpy.random.randint(0, 4, self.sample_shape + self.shape)
        return numpy.eye(4, dtype=self.dtype)[idx]


def _probs(shape, k=4):
    # Concentrated away from 0, where finite differences of log p are accurate.
    return numpy.random.dirichlet(numpy.full(k, 5.0), size=shape)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_moments(dtype):
    p = _probs((2,)).astype(dtype)
    d = distributions.OneHotCategorical(p)
    tol = 2e-2 if dtype == numpy.float16 else 1e-5
    testing.assert_allclose(d.variance.array, p * (1 - p), atol=tol)
    p64 = p.astype(numpy.float64)
    p64 /= p64.sum(axis=-1, keepdims=True)
    expected_cov = [stats.multinomial.cov(1, pp) for pp in p64]
    testing.assert_allclose(d.covariance.array, expected_cov, atol=tol)
    assert d.log_prob(numpy.eye(4, dtype=dtype)[[0, 2]]).dtype == dtype


def test_zero_probabilities():
    p = numpy.array([0.0, 0.3, 0.7], numpy.float32)
    d = distributions.OneHotCategorical(p)
    x = numpy.eye(3, dtype=numpy.float32)[[1, 2]]
    testing.assert_allclose(d.log_prob(x).array, numpy.log([0.3, 0.7]))
    testing.assert_allclose(d.entropy.array, stats.entropy(p))
    assert numpy.isneginf(d.log_p.array[0])


def test_gradients():
    p = _probs((2,))
    x = numpy.eye(4)[numpy.random.randint(0, 4, (3, 2))]
    gy = numpy.random.normal(size=(3, 2))
    g = numpy.random.normal(size=(2,))

    def f(p):
        d = distributions.OneHotCategorical(p)
        return d.log_prob(x), d.entropy, d.covariance

    gc = numpy.random.normal(size=(2, 4, 4))
    gradient_check.check_backward(f, p, (gy, g, gc))
    gradient_check.check_double_backward(f, p, (gy, g, gc), p)


def test_kl_divergence(kl_monte_carlo):
    p1, p2 = _probs((3,)), _probs((3,))
    d1 = distributions.OneHotCategorical(p1)
    d2 = distributions.OneHotCategorical(p2)
    kl_monte_carlo(d1, d2)
    expected = (p1 * numpy.log(p1 / p2)).sum(axis=-1)
    testing.assert_allclose(chainer.kl_divergence(d1, d2).array, expected)

    def f(p1, p2):
        return chainer.kl_divergence(
            distributions.OneHotCategorical(p1), distributions.OneHotCategorical(p2)
        )

    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, (p1, p2), gy)
    gradient_check.check_double_backward(f, (p1, p2), gy, (p1, p2))


def test_bad_arguments():
    with pytest.raises(ValueError, match="categories"):
        distributions.OneHotCategorical(numpy.float32(1.0))
    with pytest.raises(TypeError, match="float dtype"):
        distributions.OneHotCategorical(numpy.array([0, 1]))
