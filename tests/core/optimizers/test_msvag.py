import numpy
import pytest

from chainer import optimizers


def _reference(w0, grads, lr=0.1, beta=0.9, eta=1.0, weight_decay_rate=0.0):
    w = w0.copy()
    m, v = numpy.zeros_like(w0), numpy.zeros_like(w0)
    for t, g in enumerate(grads, 1):
        m = beta * m + (1 - beta) * g
        v = beta * v + (1 - beta) * g * g
        mt = m / (1 - beta**t)
        vt = v / (1 - beta**t)
        if t == 1:
            factor = numpy.ones_like(w0)
        else:
            rho = (1 - beta) * (1 + beta**t) / ((1 + beta) * (1 - beta**t))
            s = numpy.maximum(vt - mt * mt, 0) / (1 - rho)
            factor = mt * mt / (mt * mt + rho * s)
        w = w - eta * (lr * mt * factor + weight_decay_rate * w)
    return w, m, v


@pytest.mark.parametrize(
    "kwargs", [{}, {"lr": 0.05, "beta": 0.5}, {"eta": 0.5, "weight_decay_rate": 0.1}]
)
def test_update_matches_formula(helpers, kwargs):
    rng = numpy.random.RandomState(12)
    w0 = rng.randn(6)
    grads = rng.randn(4, 6) + 0.5
    w, rule = helpers.one_step(lambda: optimizers.MSVAG(**kwargs), w0, grads)
    expected, m, v = _reference(w0, grads, **kwargs)
    numpy.testing.assert_allclose(w, expected, rtol=1e-10)
    numpy.testing.assert_allclose(rule.state["m"], m, rtol=1e-10)
    numpy.testing.assert_allclose(rule.state["v"], v, rtol=1e-10)


def test_zero_gradient_is_finite(helpers):
    w, _ = helpers.one_step(lambda: optimizers.MSVAG(), [1.0, 2.0], numpy.zeros((3, 2)))
    numpy.testing.assert_array_equal(w, [1.0, 2.0])


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_quadratic_decreases(helpers, dtype):
    helpers.check_decreases(lambda: optimizers.MSVAG(lr=0.5), dtype)


def test_serialize_round_trip(helpers):
    store = helpers.check_serialize_round_trip(lambda: optimizers.MSVAG())
    assert {"w/m", "w/v"} <= set(store)


def test_bad_beta():
    with pytest.raises(ValueError, match=r"MSVAG: beta must be in \[0, 1\)"):
        optimizers.MSVAG(beta=1.0)
