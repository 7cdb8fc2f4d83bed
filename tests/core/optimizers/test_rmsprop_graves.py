import numpy
import pytest

from chainer import optimizers


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_quadratic_decreases(helpers, dtype):
    helpers.check_decreases(lambda: optimizers.RMSpropGraves(lr=0.01), dtype)


def test_float16_with_tiny_eps(helpers):
    # An eps that rounds to zero in float16 is accepted, as in Chainer.
    helpers.check_decreases(
        lambda: optimizers.RMSpropGraves(lr=0.01, eps=1e-9), numpy.float16
    )


def test_update_matches_formula(helpers):
    rng = numpy.random.RandomState(8)
    w0 = rng.randn(5)
    grads = rng.randn(3, 5)
    lr, alpha, mom, eps = 0.01, 0.9, 0.8, 1e-2
    w, rule = helpers.one_step(
        lambda: optimizers.RMSpropGraves(lr=lr, alpha=alpha, momentum=mom, eps=eps),
        w0,
        grads,
    )
    expected = w0.copy()
    n, gm, delta = numpy.zeros(5), numpy.zeros(5), numpy.zeros(5)
    for g in grads:
        n = alpha * n + (1 - alpha) * g * g
        gm = alpha * gm + (1 - alpha) * g
        delta = mom * delta - lr * g / numpy.sqrt(n - gm * gm + eps)
        expected = expected + delta
    numpy.testing.assert_allclose(w, expected, rtol=1e-12)
    for key, value in (("n", n), ("g", gm), ("delta", delta)):
        numpy.testing.assert_allclose(rule.state[key], value, rtol=1e-12)


def test_serialize_round_trip(helpers):
    store = helpers.check_serialize_round_trip(lambda: optimizers.RMSpropGraves())
    assert {"w/n", "w/g", "w/delta"} <= set(store)


def test_bad_eps():
    with pytest.raises(ValueError, match="RMSpropGraves: eps"):
        optimizers.RMSpropGraves(eps=-1e-4)
