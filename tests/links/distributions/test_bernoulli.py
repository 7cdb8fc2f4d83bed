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
            "use_logit": [False],
        }
    ),
    {
        "shape": (2,),
        "is_variable": True,
        "sample_shape": (2,),
        "dtype": numpy.float64,
        "use_logit": True,
    },
)
@testing.fix_random()
class TestBernoulli(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Bernoulli
        self.scipy_dist = stats.bernoulli
        self.continuous = False
        self.support = "{0, 1}"
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
        p = numpy.random.uniform(0.05, 0.95, self.shape).astype(self.dtype)
        if self.use_logit:
            self.params = {"logit": numpy.log(p) - numpy.log1p(-p)}
        else:
            self.params = {"p": p}
        self.scipy_params = {"p": p}

    def sample_for_test(self):
        return numpy.random.randint(0, 2, self.sample_shape + self.shape).astype(
            self.dtype
        )


_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _grad_tol(dtype):
    if dtype == numpy.float16:
        return {"dtype": numpy.float64, "atol": 5e-2, "rtol": 5e-2}
    return {"dtype": numpy.float64, "atol": 1e-4, "rtol": 1e-3}


@pytest.mark.parametrize("dtype", _DTYPES)
def test_log_prob_dtype(dtype):
    p = numpy.array([0.2, 0.7], dtype)
    x = numpy.array([[0, 1], [1, 0]], dtype)
    y = distributions.Bernoulli(p).log_prob(x)
    assert y.dtype == dtype
    tol = 1e-2 if dtype == numpy.float16 else 1e-5
    testing.assert_allclose(y.array, stats.bernoulli.logpmf(x, p), atol=tol, rtol=tol)


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("shape", [(3,), ()])
def test_log_prob_gradients(dtype, shape):
    logit = numpy.random.normal(size=shape).astype(dtype)
    p = numpy.random.uniform(0.2, 0.8, shape).astype(dtype)
    x = numpy.random.randint(0, 2, (2, *shape)).astype(dtype)
    gy = numpy.random.normal(size=(2, *shape)).astype(dtype)
    gg = numpy.random.normal(size=shape).astype(dtype)

    def from_logit(logit):
        return distributions.Bernoulli(logit=logit).log_prob(x)

    def from_p(p):
        return distributions.Bernoulli(p).log_prob(x)

    for f, param in ((from_logit, logit), (from_p, p)):
        gradient_check.check_backward(f, param, gy, **_grad_tol(dtype))
        gradient_check.check_double_backward(f, param, gy, gg, **_grad_tol(dtype))


def test_entropy_gradient():
    p = numpy.random.uniform(0.2, 0.8, 3)
    gradient_check.check_backward(
        lambda p: distributions.Bernoulli(p).entropy, p, numpy.ones(3)
    )


def test_binary_check():
    p = numpy.array([0.3, 0.3, 0.3], numpy.float32)
    x = numpy.array([0, 1, 0.5], numpy.float32)
    checked = distributions.Bernoulli(p, binary_check=True)
    assert numpy.isneginf(checked.log_prob(x).array[2])
    assert checked.prob(x).array[2] == 0
    relaxed = distributions.Bernoulli(p).log_prob(x).array[2]
    assert relaxed == pytest.approx(0.5 * numpy.log(0.3) + 0.5 * numpy.log(0.7))


def test_extreme_probabilities():
    p = numpy.array([0.0, 1.0], numpy.float32)
    d = distributions.Bernoulli(p)
    testing.assert_allclose(d.log_prob(numpy.array([0, 1], numpy.float32)).array, 0)
    testing.assert_allclose(d.entropy.array, 0)
    with numpy.errstate(divide="ignore"):
        lp = d.log_prob(numpy.array([1, 0], numpy.float32)).array
    assert numpy.all(numpy.isneginf(lp))


def test_sample_values():
    d = distributions.Bernoulli(numpy.array([0.0, 1.0, 0.5], numpy.float32))
    s = d.sample(1000).array
    assert s.dtype == numpy.float32
    assert set(numpy.unique(s)) <= {0.0, 1.0}
    assert numpy.all(s[:, 0] == 0)
    assert numpy.all(s[:, 1] == 1)


def test_params():
    d = distributions.Bernoulli(numpy.array([0.5], numpy.float32))
    assert set(d.params) == {"logit"}
    testing.assert_allclose(d.logit.array, [0.0])


def test_kl_divergence(kl_monte_carlo):
    p1 = numpy.random.uniform(0.1, 0.9, 3)
    p2 = numpy.random.uniform(0.1, 0.9, 3)
    d1, d2 = distributions.Bernoulli(p1), distributions.Bernoulli(p2)
    kl_monte_carlo(d1, d2)
    expected = p1 * numpy.log(p1 / p2) + (1 - p1) * numpy.log((1 - p1) / (1 - p2))
    testing.assert_allclose(chainer.kl_divergence(d1, d2).array, expected)
    d3 = distributions.Bernoulli(logit=numpy.log(p2 / (1 - p2)))
    testing.assert_allclose(chainer.kl_divergence(d1, d3).array, expected)


def test_kl_divergence_gradients():
    logits = (numpy.random.normal(size=3), numpy.random.normal(size=3))

    def f(l1, l2):
        return chainer.kl_divergence(
            distributions.Bernoulli(logit=l1), distributions.Bernoulli(logit=l2)
        )

    gy = numpy.random.normal(size=3)
    gradient_check.check_backward(f, logits, gy)
    gradient_check.check_double_backward(f, logits, gy, logits)


def test_bad_arguments():
    with pytest.raises(ValueError, match="logit"):
        distributions.Bernoulli()
    with pytest.raises(ValueError, match="logit"):
        distributions.Bernoulli(
            numpy.ones(1, numpy.float32), numpy.ones(1, numpy.float32)
        )
    with pytest.raises(TypeError, match="float dtype"):
        distributions.Bernoulli(numpy.ones(2, numpy.int64))


def test_infinite_logits():
    logit = numpy.array([numpy.inf, -numpy.inf], numpy.float32)
    d = distributions.Bernoulli(logit=logit, binary_check=True)
    testing.assert_allclose(d.log_prob(numpy.array([1, 0], numpy.float32)).array, 0)
    assert numpy.all(
        numpy.isneginf(d.log_prob(numpy.array([0, 1], numpy.float32)).array)
    )


def test_log_prob_helper_from_logit():
    # Chainer's private helper: log p(x) from the log-odds, with broadcasting.
    logit = numpy.random.normal(size=()).astype(numpy.float32)
    x = numpy.array([0.0, 1.0, 1.0], numpy.float32)
    y = distributions.bernoulli._bernoulli_log_prob(logit, x)
    assert y.shape == (3,)
    p = 1 / (1 + numpy.exp(-logit))
    numpy.testing.assert_allclose(y.array, stats.bernoulli.logpmf(x, p), rtol=1e-5)
    gradient_check.check_backward(
        lambda lg: distributions.bernoulli._bernoulli_log_prob(lg, x),
        logit,
        numpy.ones(3, numpy.float32),
        atol=1e-2,
        rtol=1e-2,
    )
    inf = numpy.full((3,), numpy.inf, numpy.float32)
    with numpy.errstate(divide="ignore"):
        y = distributions.bernoulli._bernoulli_log_prob(inf, x)
    numpy.testing.assert_array_equal(y.array, [-numpy.inf, 0.0, 0.0])
