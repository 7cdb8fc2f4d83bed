import numpy
import pytest
from scipy import stats

import chainer
from chainer import distributions
from chainer import gradient_check
from chainer import testing


def _normal(shape, dtype=numpy.float64):
    loc = numpy.random.normal(size=shape).astype(dtype)
    scale = numpy.random.uniform(0.5, 1.5, shape).astype(dtype)
    return distributions.Normal(loc, scale)


@pytest.mark.parametrize(
    ("base_shape", "ndims", "batch_shape", "event_shape"),
    [
        ((4, 3, 2), None, (4,), (3, 2)),
        ((4, 3, 2), 1, (4, 3), (2,)),
        ((4, 3, 2), 0, (4, 3, 2), ()),
        ((4, 3, 2), 3, (), (4, 3, 2)),
        ((), None, (), ()),
    ],
)
def test_shapes(base_shape, ndims, batch_shape, event_shape):
    d = distributions.Independent(_normal(base_shape), ndims)
    assert d.batch_shape == batch_shape
    assert d.event_shape == event_shape
    assert d.sample(5).shape == (5, *base_shape)
    assert d.entropy.shape == batch_shape


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_values(dtype):
    base = _normal((4, 3), dtype)
    d = distributions.Independent(base)
    loc = base.loc.array.astype(numpy.float64)
    scale = base.scale.array.astype(numpy.float64)
    x = numpy.random.normal(size=(2, 4, 3)).astype(dtype)
    tol = {"atol": 5e-2, "rtol": 5e-2} if dtype == numpy.float16 else {}
    y = d.log_prob(x)
    assert y.dtype == dtype
    assert y.shape == (2, 4)
    testing.assert_allclose(y.array, stats.norm.logpdf(x, loc, scale).sum(-1), **tol)
    testing.assert_allclose(
        d.prob(x).array, stats.norm.pdf(x, loc, scale).prod(-1), **tol
    )
    testing.assert_allclose(
        d.cdf(x).array, stats.norm.cdf(x, loc, scale).prod(-1), **tol
    )
    testing.assert_allclose(
        d.log_cdf(x).array, stats.norm.logcdf(x, loc, scale).sum(-1), **tol
    )
    testing.assert_allclose(
        d.survival_function(x).array, stats.norm.sf(x, loc, scale).prod(-1), **tol
    )
    testing.assert_allclose(
        d.log_survival_function(x).array,
        stats.norm.logsf(x, loc, scale).sum(-1),
        **tol,
    )
    testing.assert_allclose(
        d.entropy.array, stats.norm.entropy(loc, scale).sum(-1), **tol
    )
    testing.assert_allclose(d.mean.array, loc, **tol)
    testing.assert_allclose(d.variance.array, scale**2, **tol)
    testing.assert_allclose(d.stddev.array, scale, **tol)
    assert d.support == "real"
    assert set(d.params) == {"loc", "scale"}


def test_covariance_of_scalar_events():
    base = _normal((2, 3))
    cov = distributions.Independent(base).covariance.array
    assert cov.shape == (2, 3, 3)
    for c, s in zip(cov, base.scale.array, strict=True):
        testing.assert_allclose(c, numpy.diag(s**2))


def test_covariance_of_vector_events():
    loc = numpy.zeros((2, 3, 2))
    lower = numpy.tril(numpy.random.normal(size=(2, 3, 2, 2)), -1) + 2 * numpy.eye(2)
    base = distributions.MultivariateNormal(loc, scale_tril=lower)
    cov = distributions.Independent(base).covariance.array
    assert cov.shape == (2, 6, 6)
    blocks = base.covariance.array
    for b in range(2):
        expected = numpy.zeros((6, 6))
        for i in range(3):
            expected[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = blocks[b, i]
        testing.assert_allclose(cov[b], expected)


def test_gradients():
    loc = numpy.random.normal(size=(2, 3))
    scale = numpy.random.uniform(0.5, 1.5, (2, 3))
    x = numpy.random.normal(size=(4, 2, 3))
    gy = numpy.random.normal(size=(4, 2))
    g = numpy.random.normal(size=(2,))

    def f(loc, scale):
        d = distributions.Independent(distributions.Normal(loc, scale))
        return d.log_prob(x), d.entropy

    gradient_check.check_backward(f, (loc, scale), (gy, g))
    gradient_check.check_double_backward(f, (loc, scale), (gy, g), (loc, scale))


def test_kl_divergence(kl_monte_carlo):
    d1 = distributions.Independent(_normal((2, 3)))
    d2 = distributions.Independent(_normal((2, 3)))
    kl_monte_carlo(d1, d2)
    expected = chainer.kl_divergence(d1.distribution, d2.distribution).array.sum(-1)
    testing.assert_allclose(chainer.kl_divergence(d1, d2).array, expected)
    d3 = distributions.Independent(_normal((2, 3)), 0)
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        chainer.kl_divergence(d1, d3)


def test_bad_reinterpreted_batch_ndims():
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        distributions.Independent(_normal((2, 3)), 3)
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        distributions.Independent(_normal((2, 3)), -1)
