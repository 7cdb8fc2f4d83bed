import numpy
import pytest
from scipy import stats

import chainer
from chainer import distributions
from chainer import gradient_check
from chainer import testing


def _probs(shape, k=4):
    # Concentrated away from 0, where finite differences of log p are accurate.
    return numpy.random.dirichlet(numpy.full(k, 5.0), size=shape)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(2, 3), ()])
@pytest.mark.parametrize("use_logit", [False, True])
def test_log_prob_and_entropy(dtype, shape, use_logit):
    p = _probs(shape).astype(dtype)
    if use_logit:
        d = distributions.Categorical(logit=numpy.log(p) + 1.5)
    else:
        d = distributions.Categorical(p)
    assert d.batch_shape == shape
    assert d.event_shape == ()
    x = numpy.random.randint(0, 4, (5, *shape))
    y = d.log_prob(x)
    assert y.dtype == dtype
    assert y.shape == (5, *shape)
    pb = numpy.broadcast_to(p, (5, *p.shape)).astype(numpy.float64)
    expected = numpy.log(numpy.take_along_axis(pb, x[..., None], axis=-1)[..., 0])
    tol = 2e-2 if dtype == numpy.float16 else 1e-5
    testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)
    testing.assert_allclose(
        d.entropy.array, stats.entropy(p.astype(numpy.float64), axis=-1), atol=tol
    )
    testing.assert_allclose(d.p.array, p, atol=tol)
    testing.assert_allclose(d.prob(x).array, numpy.exp(expected), atol=tol)


def test_log_prob_accepts_variables_and_lists():
    d = distributions.Categorical(numpy.array([0.25, 0.75], numpy.float32))
    testing.assert_allclose(d.log_prob([0, 1]).array, numpy.log([0.25, 0.75]))
    x = chainer.Variable(numpy.array([1, 1], numpy.int32))
    testing.assert_allclose(d.log_prob(x).array, numpy.log([0.75, 0.75]))


@pytest.mark.parametrize("shape", [(2,), ()])
def test_sample_frequencies(shape):
    p = _probs(shape).astype(numpy.float32)
    d = distributions.Categorical(p)
    s = d.sample((50000,)).array
    assert s.shape == (50000, *shape)
    assert s.dtype == numpy.int32
    freq = (s[..., None] == numpy.arange(4)).mean(axis=0)
    testing.assert_allclose(freq, p, atol=1e-2)
    assert d.support == "{0, 1, ..., K-1}"
    assert set(d.params) == {"p"}


def test_zero_probabilities():
    p = numpy.array([0.0, 0.4, 0.6], numpy.float32)
    d = distributions.Categorical(p)
    testing.assert_allclose(d.entropy.array, stats.entropy(p))
    assert set(numpy.unique(d.sample(1000).array)) <= {1, 2}
    lp = d.log_prob(numpy.array([0, 1, 2])).array
    assert numpy.isneginf(lp[0])
    testing.assert_allclose(lp[1:], numpy.log([0.4, 0.6]))

    def f(p):
        return distributions.Categorical(p).entropy

    gradient_check.check_backward(f, p[1:].astype(numpy.float64), numpy.ones(()))


@pytest.mark.parametrize("use_logit", [False, True])
def test_gradients(use_logit):
    p = _probs((2,))
    param = numpy.log(p) if use_logit else p
    x = numpy.random.randint(0, 4, (3, 2))
    gy = numpy.random.normal(size=(3, 2))
    g = numpy.random.normal(size=(2,))

    def f(param):
        if use_logit:
            d = distributions.Categorical(logit=param)
        else:
            d = distributions.Categorical(param)
        return d.log_prob(x), d.entropy

    gradient_check.check_backward(f, param, (gy, g))
    gradient_check.check_double_backward(f, param, (gy, g), param)


def test_kl_divergence(kl_monte_carlo):
    p1, p2 = _probs((3,)), _probs((3,))
    d1 = distributions.Categorical(p1)
    d2 = distributions.Categorical(logit=numpy.log(p2))
    kl_monte_carlo(d1, d2)
    expected = (p1 * numpy.log(p1 / p2)).sum(axis=-1)
    testing.assert_allclose(chainer.kl_divergence(d1, d2).array, expected)
    # Categories p1 gives no mass to do not contribute.
    q1 = numpy.array([0.0, 0.5, 0.5])
    q2 = numpy.array([0.2, 0.4, 0.4])
    kl = chainer.kl_divergence(
        distributions.Categorical(q1), distributions.Categorical(q2)
    )
    testing.assert_allclose(kl.array, numpy.log(0.5 / 0.4))

    def f(l1, l2):
        return chainer.kl_divergence(
            distributions.Categorical(logit=l1), distributions.Categorical(logit=l2)
        )

    params = (numpy.log(p1), numpy.log(p2))
    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, params, gy)
    gradient_check.check_double_backward(f, params, gy, params)


def test_bad_arguments():
    with pytest.raises(ValueError, match="logit"):
        distributions.Categorical()
    p = numpy.array([0.5, 0.5], numpy.float32)
    with pytest.raises(ValueError, match="logit"):
        distributions.Categorical(p, logit=p)
    with pytest.raises(ValueError, match="categories"):
        distributions.Categorical(numpy.float32(1.0))
    with pytest.raises(TypeError, match="unexpected"):
        distributions.Categorical(p, logits=p)
