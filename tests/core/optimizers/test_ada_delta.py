import numpy
import pytest

from chainer import optimizers


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_quadratic_decreases(helpers, dtype):
    helpers.check_decreases(lambda: optimizers.AdaDelta(eps=1e-2), dtype)


def test_float16_with_tiny_eps(helpers):
    # An eps that rounds to zero in float16 is accepted, as in Chainer (the
    # step is then zero: AdaDelta's step is proportional to sqrt(eps) first).
    link = helpers.make_link(numpy.float16)
    opt = optimizers.AdaDelta(eps=1e-9).setup(link)
    opt.update(link)
    assert numpy.isfinite(link.w.array).all()


def test_update_matches_formula(helpers):
    rng = numpy.random.RandomState(6)
    w0 = rng.randn(5)
    grads = rng.randn(3, 5)
    rho, eps = 0.9, 1e-4
    w, rule = helpers.one_step(lambda: optimizers.AdaDelta(rho=rho, eps=eps), w0, grads)
    expected, msg, msdx = w0.copy(), numpy.zeros(5), numpy.zeros(5)
    for g in grads:
        msg = rho * msg + (1 - rho) * g * g
        dx = numpy.sqrt((msdx + eps) / (msg + eps)) * g
        msdx = rho * msdx + (1 - rho) * dx * dx
        expected = expected - dx
    numpy.testing.assert_allclose(w, expected, rtol=1e-12)
    numpy.testing.assert_allclose(rule.state["msg"], msg, rtol=1e-12)
    numpy.testing.assert_allclose(rule.state["msdx"], msdx, rtol=1e-12)


def test_serialize_round_trip(helpers):
    store = helpers.check_serialize_round_trip(lambda: optimizers.AdaDelta())
    assert {"w/msg", "w/msdx"} <= set(store)


def test_defaults():
    opt = optimizers.AdaDelta()
    assert (opt.rho, opt.eps) == (0.95, 1e-6)


def test_bad_rho():
    with pytest.raises(ValueError, match=r"AdaDelta: rho must be in \[0, 1\]"):
        optimizers.AdaDelta(rho=1.5)
