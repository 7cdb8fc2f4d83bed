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
class TestCauchy(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Cauchy
        self.scipy_dist = stats.cauchy
        # The mean and variance are undefined (tested below); heavy tails make
        # sample moments useless, so sampling is checked through quantiles.
        self.test_targets = {
            "batch_shape",
            "cdf",
            "entropy",
            "event_shape",
            "icdf",
            "log_prob",
            "prob",
            "support",
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


def test_sample_quantiles():
    loc, scale = _params((2,))
    s = distributions.Cauchy(loc, scale).sample(50000).array
    for q in (0.25, 0.5, 0.75):
        testing.assert_allclose(
            numpy.quantile(s, q, axis=0),
            stats.cauchy.ppf(q, loc, scale),
            atol=3e-2,
            rtol=3e-2,
        )


def test_mean_and_variance_are_undefined():
    d = distributions.Cauchy(*_params((2,), numpy.float32))
    with pytest.warns(RuntimeWarning, match="undefined"):
        mean = d.mean
    with pytest.warns(RuntimeWarning, match="undefined"):
        variance = d.variance
    assert numpy.all(numpy.isnan(mean.array))
    assert numpy.all(numpy.isnan(variance.array))
    assert mean.dtype == numpy.float32


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_gradients(dtype, shape):
    loc, scale = _params(shape, dtype)
    x = numpy.random.normal(size=(2, *shape)).astype(dtype)
    q = numpy.random.uniform(0.2, 0.8, shape).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    g = numpy.random.normal(size=shape).astype(dtype)

    def f(loc, scale):
        d = distributions.Cauchy(loc, scale)
        return d.log_prob(x), d.cdf(x), d.entropy, d.icdf(q)

    tol = 5e-2 if dtype == numpy.float16 else 1e-3
    opts = {"dtype": numpy.float64, "atol": tol, "rtol": tol}
    gradient_check.check_backward(f, (loc, scale), (gy, gy, g, g), **opts)
    gradient_check.check_double_backward(
        f, (loc, scale), (gy, gy, g, g), (g, g), **opts
    )


def test_sample_is_reparameterized():
    loc, scale = _params((3,))

    def f(loc, scale):
        numpy.random.seed(3)
        return distributions.Cauchy(loc, scale).sample(4)

    gradient_check.check_backward(f, (loc, scale), numpy.random.normal(size=(4, 3)))


def test_mode_and_params():
    loc, scale = _params((2,), numpy.float32)
    d = distributions.Cauchy(loc, scale)
    testing.assert_allclose(d.mode.array, loc)
    assert set(d.params) == {"loc", "scale"}


def test_no_kl_registered():
    d = distributions.Cauchy(*_params((2,)))
    with pytest.raises(TypeError, match="Cauchy"):
        chainer.kl_divergence(d, d)


def test_bad_parameters():
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Cauchy(numpy.zeros(2, numpy.int32), numpy.ones(2, numpy.int32))
