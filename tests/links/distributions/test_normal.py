import numpy
import pytest
from scipy import stats

import chainer
from chainer import distributions
from chainer import gradient_check
from chainer import testing

_TARGETS = {
    "batch_shape",
    "cdf",
    "entropy",
    "event_shape",
    "icdf",
    "log_cdf",
    "log_prob",
    "log_survival",
    "mean",
    "prob",
    "sample",
    "stddev",
    "support",
    "survival",
    "variance",
}


@testing.parameterize(
    *testing.product(
        {
            "shape": [(2, 3), ()],
            "is_variable": [True, False],
            "sample_shape": [(3,), ()],
            "dtype": [numpy.float32],
            "log_scale_option": [False],
        }
    ),
    {
        "shape": (2,),
        "is_variable": True,
        "sample_shape": (2,),
        "dtype": numpy.float64,
        "log_scale_option": False,
    },
    {
        "shape": (2, 3),
        "is_variable": True,
        "sample_shape": (2,),
        "dtype": numpy.float32,
        "log_scale_option": True,
    },
)
@testing.fix_random()
class TestNormal(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Normal
        self.scipy_dist = stats.norm
        self.test_targets = _TARGETS
        loc = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        scale = numpy.exp(numpy.random.uniform(-1, 0.5, self.shape)).astype(self.dtype)
        if self.log_scale_option:
            self.params = {"loc": loc, "log_scale": numpy.log(scale)}
        else:
            self.params = {"loc": loc, "scale": scale}
        self.scipy_params = {"loc": loc, "scale": scale}

    def sample_for_test(self):
        return numpy.random.normal(size=self.sample_shape + self.shape).astype(
            self.dtype
        )


_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _tol(dtype):
    if dtype == numpy.float16:
        return {"atol": 5e-2, "rtol": 5e-2}
    return {"atol": 1e-4, "rtol": 1e-3}


def _grad_tol(dtype):
    if dtype == numpy.float16:
        return {"dtype": numpy.float64, "atol": 5e-2, "rtol": 5e-2}
    return {"dtype": numpy.float64, "atol": 1e-4, "rtol": 1e-3}


def _params(shape, dtype):
    loc = numpy.random.uniform(-1, 1, shape).astype(dtype)
    scale = numpy.random.uniform(0.5, 1.5, shape).astype(dtype)
    return loc, scale


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("shape", [(3,), ()])
def test_log_prob_keeps_dtype_and_matches_scipy(dtype, shape):
    loc, scale = _params(shape, dtype)
    x = numpy.random.normal(size=(4, *shape)).astype(dtype)
    y = distributions.Normal(loc, scale).log_prob(x)
    assert y.dtype == dtype
    assert y.shape == (4, *shape)
    expected = stats.norm.logpdf(x, loc.astype(numpy.float64), scale)
    testing.assert_allclose(y.array, expected, **_tol(dtype))


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("shape", [(3,), ()])
def test_log_prob_gradients(dtype, shape):
    loc, scale = _params(shape, dtype)
    x = numpy.random.normal(size=(2, *shape)).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    ggs = tuple(numpy.random.normal(size=shape).astype(dtype) for _ in range(2))

    def f(loc, scale):
        return distributions.Normal(loc, scale).log_prob(x)

    gradient_check.check_backward(f, (loc, scale), gy, **_grad_tol(dtype))
    gradient_check.check_double_backward(f, (loc, scale), gy, ggs, **_grad_tol(dtype))


@pytest.mark.parametrize("dtype", _DTYPES)
def test_gradients_with_log_scale(dtype):
    loc, scale = _params((3,), dtype)
    log_scale = numpy.log(scale)
    x = numpy.random.normal(size=(3,)).astype(dtype)
    gy = numpy.random.normal(size=(3,)).astype(dtype)

    def f(loc, log_scale):
        d = distributions.Normal(loc, log_scale=log_scale)
        return d.log_prob(x), d.entropy, d.cdf(x), d.log_survival_function(x)

    gradient_check.check_backward(
        f, (loc, log_scale), (gy, gy, gy, gy), **_grad_tol(dtype)
    )


def test_icdf_gradient():
    loc, scale = _params((3,), numpy.float64)
    p = numpy.random.uniform(0.1, 0.9, 3)
    gy = numpy.random.normal(size=3)

    def f(loc, scale, p):
        return distributions.Normal(loc, scale).icdf(p)

    gradient_check.check_backward(f, (loc, scale, p), gy)


def test_sample_is_reparameterized():
    loc, scale = _params((3,), numpy.float64)
    gy = numpy.random.normal(size=(5, 3))

    def f(loc, scale):
        numpy.random.seed(7)
        return distributions.Normal(loc, scale).sample(5)

    gradient_check.check_backward(f, (loc, scale), gy)


def test_float16_sample_dtype():
    loc, scale = _params((2,), numpy.float16)
    s = distributions.Normal(loc, scale).sample((4, 3))
    assert s.shape == (4, 3, 2)
    assert s.dtype == numpy.float16


@pytest.mark.parametrize("shape", [(3,), ()])
def test_kl_divergence(shape, kl_monte_carlo):
    d1 = distributions.Normal(*_params(shape, numpy.float64))
    d2 = distributions.Normal(*_params(shape, numpy.float64))
    kl_monte_carlo(d1, d2)
    # Closed form: log(s2/s1) + (s1^2 + (m1 - m2)^2) / (2 s2^2) - 1/2.
    m1, s1, m2, s2 = d1.loc.array, d1.scale.array, d2.loc.array, d2.scale.array
    expected = numpy.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5
    kl = chainer.kl_divergence(d1, d2)
    testing.assert_allclose(kl.array, expected)
    assert chainer.kl_divergence(d1, d1).array == pytest.approx(0)


def test_kl_divergence_gradients():
    params = _params((3,), numpy.float64) + _params((3,), numpy.float64)
    gy = numpy.random.normal(size=3)
    ggs = tuple(numpy.random.normal(size=3) for _ in range(4))

    def f(m1, s1, m2, s2):
        return chainer.kl_divergence(
            distributions.Normal(m1, s1), distributions.Normal(m2, s2)
        )

    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, ggs)


def test_cross_entropy():
    d1 = distributions.Normal(*_params((3,), numpy.float64))
    d2 = distributions.Normal(*_params((3,), numpy.float64))
    h = chainer.cross_entropy(d1, d2)
    testing.assert_allclose(
        h.array, d1.entropy.array + chainer.kl_divergence(d1, d2).array
    )


def test_params_and_properties():
    loc, scale = _params((2,), numpy.float32)
    d = distributions.Normal(loc, scale)
    assert set(d.params) == {"loc", "scale"}
    assert d.support == "real"
    assert d.batch_shape == (2,)
    assert d.event_shape == ()
    assert d.xp is numpy
    testing.assert_allclose(d.mode.array, loc)
    testing.assert_allclose(d.log_scale.array, numpy.log(scale))
    testing.assert_allclose(
        d.perplexity(loc).array, numpy.exp(-d.log_prob(loc).array), rtol=1e-5
    )


def test_parameters_broadcast():
    d = distributions.Normal(numpy.zeros((2, 3), numpy.float32), numpy.float32(2))
    assert d.batch_shape == (2, 3)
    assert d.scale.shape == (2, 3)


def test_variable_parameters_receive_gradients():
    loc = chainer.Variable(numpy.zeros(3, numpy.float32))
    scale = chainer.Variable(numpy.ones(3, numpy.float32))
    d = distributions.Normal(loc, scale)
    loss = d.log_prob(numpy.ones(3, numpy.float32))
    loss.grad = numpy.ones(3, numpy.float32)
    loss.backward()
    testing.assert_allclose(loc.grad, numpy.ones(3))
    testing.assert_allclose(scale.grad, numpy.zeros(3))


def test_both_or_neither_scale_is_an_error():
    loc = numpy.zeros(3, numpy.float32)
    with pytest.raises(ValueError, match="log_scale"):
        distributions.Normal(loc)
    with pytest.raises(ValueError, match="log_scale"):
        distributions.Normal(loc, loc, log_scale=loc)


def test_bad_parameters():
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Normal(numpy.zeros(3, numpy.int32), numpy.ones(3, numpy.int32))
    with pytest.raises(TypeError, match="one dtype"):
        distributions.Normal(
            numpy.zeros(3, numpy.float32), numpy.ones(3, numpy.float64)
        )
    with pytest.raises(ValueError, match="broadcast"):
        distributions.Normal(
            numpy.zeros(3, numpy.float32), numpy.ones(2, numpy.float32)
        )
    with pytest.raises(TypeError, match="unexpected"):
        distributions.Normal(numpy.zeros(3, numpy.float32), scal=1.0)
