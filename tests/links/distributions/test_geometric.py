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
class TestGeometric(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Geometric
        self.scipy_dist = stats.geom
        self.continuous = False
        self.support = "positive integer"
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
        p = numpy.random.uniform(0.2, 0.9, self.shape).astype(self.dtype)
        self.params = {"p": p}
        self.scipy_params = {"p": p}

    def sample_for_test(self):
        return numpy.random.randint(1, 8, self.sample_shape + self.shape).astype(
            self.dtype
        )


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_gradients(dtype, shape):
    p = numpy.random.uniform(0.2, 0.8, shape).astype(dtype)
    x = numpy.random.randint(1, 5, (2, *shape)).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    g = numpy.random.normal(size=shape).astype(dtype)

    def f(p):
        d = distributions.Geometric(p)
        return d.log_prob(x), d.entropy, d.variance

    tol = 5e-2 if dtype == numpy.float16 else 1e-3
    opts = {"dtype": numpy.float64, "atol": tol, "rtol": tol}
    gradient_check.check_backward(f, p, (gy, g, g), **opts)
    gradient_check.check_double_backward(f, p, (gy, g, g), g, **opts)


def test_integer_points():
    p = numpy.array([0.3, 0.6], numpy.float32)
    x = numpy.array([1, 4], numpy.int32)
    y = distributions.Geometric(p).log_prob(x)
    assert y.dtype == numpy.float32
    testing.assert_allclose(y.array, stats.geom.logpmf(x, p))


def test_mode():
    d = distributions.Geometric(numpy.array([0.3, 0.6], numpy.float32))
    testing.assert_allclose(d.mode.array, [1, 1])


def test_kl_divergence(kl_monte_carlo):
    d1 = distributions.Geometric(numpy.random.uniform(0.2, 0.8, 3))
    d2 = distributions.Geometric(numpy.random.uniform(0.2, 0.8, 3))
    kl_monte_carlo(d1, d2)

    def f(p1, p2):
        return chainer.kl_divergence(
            distributions.Geometric(p1), distributions.Geometric(p2)
        )

    params = (d1.p.array, d2.p.array)
    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_parameters():
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Geometric(numpy.ones(2, numpy.int32))
