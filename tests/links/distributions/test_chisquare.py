import numpy
import pytest
from scipy import stats

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
class TestChisquare(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Chisquare
        self.scipy_dist = stats.chi2
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
        k = numpy.random.uniform(1, 5, self.shape).astype(self.dtype)
        self.params = {"k": k}
        self.scipy_params = {"df": k}

    def sample_for_test(self):
        return numpy.random.uniform(0.1, 5, self.sample_shape + self.shape).astype(
            self.dtype
        )


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_gradients(dtype, shape):
    k = numpy.random.uniform(1, 4, shape).astype(dtype)
    x = numpy.random.uniform(0.5, 3, (2, *shape)).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    g = numpy.random.normal(size=shape).astype(dtype)

    def f(k, x):
        d = distributions.Chisquare(k)
        return d.log_prob(x), d.entropy

    tol = 5e-2 if dtype == numpy.float16 else 1e-3
    opts = {"dtype": numpy.float64, "atol": tol, "rtol": tol}
    gradient_check.check_backward(f, (k, x), (gy, g), **opts)
    gradient_check.check_double_backward(f, (k, x), (gy, g), (g, gy), **opts)


def test_float16_values():
    k = numpy.array([1.5, 3.0], numpy.float16)
    x = numpy.array([0.7, 2.5], numpy.float16)
    y = distributions.Chisquare(k).log_prob(x)
    assert y.dtype == numpy.float16
    testing.assert_allclose(y.array, stats.chi2.logpdf(x, k), atol=2e-2, rtol=2e-2)


def test_outside_support():
    d = distributions.Chisquare(numpy.array([3.0], numpy.float32))
    assert numpy.isneginf(d.log_prob(numpy.array([-1.0], numpy.float32)).array[0])


def test_bad_parameters():
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Chisquare(numpy.ones(2, numpy.int32))
