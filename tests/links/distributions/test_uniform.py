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
            "use_loc_scale": [False],
        }
    ),
    {
        "shape": (2,),
        "is_variable": True,
        "sample_shape": (2,),
        "dtype": numpy.float64,
        "use_loc_scale": True,
    },
)
@testing.fix_random()
class TestUniform(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Uniform
        self.scipy_dist = stats.uniform
        self.support = "[low, high]"
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
            "stddev",
            "support",
            "survival",
            "variance",
        }
        low = numpy.random.uniform(-1, 0, self.shape).astype(self.dtype)
        scale = numpy.random.uniform(0.5, 2, self.shape).astype(self.dtype)
        if self.use_loc_scale:
            self.params = {"loc": low, "scale": scale}
        else:
            self.params = {"low": low, "high": (low + scale).astype(self.dtype)}
        self.scipy_params = {"loc": low, "scale": scale}

    def sample_for_test(self):
        # Points both inside and outside [low, high].
        return numpy.random.uniform(-1.5, 2.5, self.sample_shape + self.shape).astype(
            self.dtype
        )


def _params(shape, dtype=numpy.float64):
    low = numpy.random.uniform(-1, 0, shape).astype(dtype)
    high = (low + numpy.random.uniform(0.5, 2, shape)).astype(dtype)
    return low, high


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_gradients(dtype, shape):
    low, high = _params(shape, dtype)
    x = (low + (high - low) * numpy.random.uniform(0.1, 0.9, (2, *shape))).astype(dtype)
    q = numpy.random.uniform(0.1, 0.9, shape).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    g = numpy.random.normal(size=shape).astype(dtype)

    def f(low, high):
        d = distributions.Uniform(low=low, high=high)
        return d.log_prob(x), d.cdf(x), d.entropy, d.icdf(q), d.mean, d.stddev

    tol = 5e-2 if dtype == numpy.float16 else 1e-3
    opts = {"dtype": numpy.float64, "atol": tol, "rtol": tol}
    gys = (gy, gy, g, g, g, g)
    gradient_check.check_backward(f, (low, high), gys, **opts)
    gradient_check.check_double_backward(f, (low, high), gys, (g, g), **opts)


def test_sample_is_reparameterized():
    low, high = _params((3,))

    def f(low, high):
        numpy.random.seed(23)
        return distributions.Uniform(low=low, high=high).sample(4)

    gradient_check.check_backward(f, (low, high), numpy.random.normal(size=(4, 3)))


def test_loc_scale_views():
    low, high = _params((2,), numpy.float32)
    d = distributions.Uniform(low=low, high=high)
    testing.assert_allclose(d.loc.array, low)
    testing.assert_allclose(d.scale.array, high - low)
    assert set(d.params) == {"low", "high"}


def test_kl_divergence():
    low1, high1 = numpy.array([0.0, 0.0]), numpy.array([1.0, 1.0])
    low2, high2 = numpy.array([-1.0, 0.5]), numpy.array([2.0, 2.0])
    d1 = distributions.Uniform(low=low1, high=high1)
    d2 = distributions.Uniform(low=low2, high=high2)
    kl = chainer.kl_divergence(d1, d2).array
    testing.assert_allclose(kl[0], numpy.log(3.0))
    assert numpy.isinf(kl[1])

    def f(l1, h1, l2, h2):
        return chainer.kl_divergence(
            distributions.Uniform(low=l1, high=h1),
            distributions.Uniform(low=l2, high=h2),
        )

    params = (low1[:1], high1[:1], low2[:1], high2[:1])
    gy = numpy.ones(1)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_arguments():
    x = numpy.zeros(2, numpy.float32)
    with pytest.raises(ValueError, match="low, high"):
        distributions.Uniform(low=x)
    with pytest.raises(ValueError, match="low, high"):
        distributions.Uniform(low=x, high=x, loc=x, scale=x)
    with pytest.raises(TypeError, match="unexpected"):
        distributions.Uniform(lo=x, high=x)
