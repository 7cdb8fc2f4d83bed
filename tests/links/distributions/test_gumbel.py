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
class TestGumbel(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Gumbel
        self.scipy_dist = stats.gumbel_r
        self.test_targets = {
            "batch_shape",
            "cdf",
            "entropy",
            "event_shape",
            "icdf",
            "log_cdf",
            "log_prob",
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
    x = numpy.random.normal(size=(2, *shape)).astype(dtype)
    q = numpy.random.uniform(0.2, 0.8, shape).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    g = numpy.random.normal(size=shape).astype(dtype)

    def f(loc, scale):
        d = distributions.Gumbel(loc, scale)
        return d.log_prob(x), d.cdf(x), d.entropy, d.mean, d.icdf(q)

    tol = 5e-2 if dtype == numpy.float16 else 1e-3
    opts = {"dtype": numpy.float64, "atol": tol, "rtol": tol}
    gys = (gy, gy, g, g, g)
    gradient_check.check_backward(f, (loc, scale), gys, **opts)
    gradient_check.check_double_backward(f, (loc, scale), gys, (g, g), **opts)


def test_sample_is_reparameterized():
    loc, scale = _params((3,))

    def f(loc, scale):
        numpy.random.seed(11)
        return distributions.Gumbel(loc, scale).sample(4)

    gradient_check.check_backward(f, (loc, scale), numpy.random.normal(size=(4, 3)))


def test_kl_divergence(kl_monte_carlo):
    d1 = distributions.Gumbel(*_params((3,)))
    d2 = distributions.Gumbel(*_params((3,)))
    kl_monte_carlo(d1, d2)
    assert numpy.allclose(chainer.kl_divergence(d1, d1).array, 0, atol=1e-12)

    def f(m1, s1, m2, s2):
        return chainer.kl_divergence(
            distributions.Gumbel(m1, s1), distributions.Gumbel(m2, s2)
        )

    params = _params((3,)) + _params((3,))
    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_parameters():
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Gumbel(numpy.zeros(2, numpy.int32), numpy.ones(2, numpy.int32))
