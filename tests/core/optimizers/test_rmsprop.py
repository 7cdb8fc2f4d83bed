import numpy
import pytest

from chainer import optimizers


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_quadratic_decreases(helpers, dtype):
    helpers.check_decreases(lambda: optimizers.RMSprop(lr=0.05), dtype)


def test_float16(helpers):
    helpers.check_decreases(
        lambda: optimizers.RMSprop(lr=0.05), numpy.float16, fp32_update=True
    )
    helpers.check_decreases(
        lambda: optimizers.RMSprop(lr=0.05, eps=1e-3), numpy.float16
    )
    link = helpers.make_link(numpy.float16)
    opt = optimizers.RMSprop().setup(link)
    with pytest.raises(ValueError, match="eps of RMSprop optimizer is too small"):
        opt.update(link)


@pytest.mark.parametrize("inside", [False, True])
def test_update_matches_formula(helpers, inside):
    rng = numpy.random.RandomState(7)
    w0 = rng.randn(5)
    grads = rng.randn(3, 5)
    lr, alpha, eps = 0.01, 0.9, 1e-3
    w, rule = helpers.one_step(
        lambda: optimizers.RMSprop(lr=lr, alpha=alpha, eps=eps, eps_inside_sqrt=inside),
        w0,
        grads,
    )
    expected, ms = w0.copy(), numpy.zeros(5)
    for g in grads:
        ms = alpha * ms + (1 - alpha) * g * g
        denom = numpy.sqrt(ms + eps) if inside else numpy.sqrt(ms) + eps
        expected = expected - lr * g / denom
    numpy.testing.assert_allclose(w, expected, rtol=1e-12)
    numpy.testing.assert_allclose(rule.state["ms"], ms, rtol=1e-12)


def test_serialize_round_trip(helpers):
    helpers.check_serialize_round_trip(lambda: optimizers.RMSprop())


def test_bad_alpha():
    with pytest.raises(ValueError, match="RMSprop: alpha"):
        optimizers.RMSprop(alpha=-0.1)
