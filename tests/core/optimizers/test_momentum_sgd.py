import numpy
import pytest

from chainer import optimizers


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_quadratic_decreases(helpers, dtype):
    helpers.check_decreases(lambda: optimizers.MomentumSGD(lr=0.5), dtype)


def test_update_matches_formula(helpers):
    rng = numpy.random.RandomState(2)
    w0 = rng.randn(4)
    grads = rng.randn(3, 4)
    w, rule = helpers.one_step(
        lambda: optimizers.MomentumSGD(lr=0.1, momentum=0.8), w0, grads
    )
    expected, v = w0.copy(), numpy.zeros(4)
    for g in grads:
        v = 0.8 * v - 0.1 * g
        expected = expected + v
    numpy.testing.assert_allclose(w, expected, rtol=1e-12)
    numpy.testing.assert_allclose(rule.state["v"], v, rtol=1e-12)


def test_serialize_round_trip(helpers):
    store = helpers.check_serialize_round_trip(lambda: optimizers.MomentumSGD())
    assert "w/v" in store


def test_defaults():
    opt = optimizers.MomentumSGD()
    assert (opt.lr, opt.momentum) == (0.01, 0.9)


def test_bad_momentum():
    with pytest.raises(TypeError, match="momentum must be a real number"):
        optimizers.MomentumSGD(momentum=None)
