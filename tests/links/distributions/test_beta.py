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
class TestBeta(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Beta
        self.scipy_dist = stats.beta
        self.support = "[0, 1]"
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
        a = numpy.random.uniform(0.5, 3, self.shape).astype(self.dtype)
        b = numpy.random.uniform(0.5, 3, self.shape).astype(self.dtype)
        self.params = {"a": a, "b": b}
        self.scipy_params = {"a": a, "b": b}

    def sample_for_test(self):
        return numpy.random.uniform(0.05, 0.95, self.sample_shape + self.shape).astype(
            self.dtype
        )


def _grad_tol(dtype):
    if dtype == numpy.float16:
        return {"dtype": numpy.float64, "atol": 5e-2, "rtol": 5e-2}
    return {"dtype": numpy.float64, "atol": 1e-4, "rtol": 1e-3}


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_log_prob_and_entropy_gradients(dtype, shape):
    a = numpy.random.uniform(1, 3, shape).astype(dtype)
    b = numpy.random.uniform(1, 3, shape).astype(dtype)
    x = numpy.random.uniform(0.2, 0.8, (2, *shape)).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    ge = numpy.random.normal(size=shape).astype(dtype)
    ggs = (ge, ge)

    def f(a, b):
        d = distributions.Beta(a, b)
        return d.log_prob(x), d.entropy

    gradient_check.check_backward(f, (a, b), (gy, ge), **_grad_tol(dtype))
    gradient_check.check_double_backward(f, (a, b), (gy, ge), ggs, **_grad_tol(dtype))


def test_float16_values():
    a = numpy.array([1.5, 2.0], numpy.float16)
    b = numpy.array([2.5, 0.7], numpy.float16)
    x = numpy.array([0.3, 0.6], numpy.float16)
    y = distributions.Beta(a, b).log_prob(x)
    assert y.dtype == numpy.float16
    testing.assert_allclose(y.array, stats.beta.logpdf(x, a, b), atol=2e-2, rtol=2e-2)


def test_outside_support():
    d = distributions.Beta(numpy.float32(2), numpy.float32(3))
    y = d.log_prob(numpy.array([-0.5, 1.5], numpy.float32)).array
    assert numpy.all(numpy.isneginf(y))


def test_kl_divergence(kl_monte_carlo):
    shape = (3,)
    d1 = distributions.Beta(*numpy.random.uniform(0.8, 3, (2, *shape)))
    d2 = distributions.Beta(*numpy.random.uniform(0.8, 3, (2, *shape)))
    kl_monte_carlo(d1, d2)
    assert chainer.kl_divergence(d1, d1).array == pytest.approx(0, abs=1e-10)


def test_kl_divergence_gradients():
    params = tuple(numpy.random.uniform(1, 3, 3) for _ in range(4))

    def f(a1, b1, a2, b2):
        return chainer.kl_divergence(
            distributions.Beta(a1, b1), distributions.Beta(a2, b2)
        )

    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_parameters():
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Beta(numpy.ones(2, numpy.int32), numpy.ones(2, numpy.int32))
    with pytest.raises(TypeError, match="Variable, an array or a float"):
        distributions.Beta("a", 1.0)
