import numpy
import pytest

from chainer import optimizers


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_quadratic_decreases(helpers, dtype):
    helpers.check_decreases(lambda: optimizers.AdaGrad(lr=0.1), dtype)


def test_float16_with_fp32_update(helpers):
    link, _ = helpers.check_decreases(
        lambda: optimizers.AdaGrad(lr=0.1), numpy.float16, fp32_update=True
    )
    assert link.w.update_rule.state["h"].dtype == numpy.float32


def test_float16_with_default_eps(helpers):
    # As in Chainer, AdaGrad accepts float16 although its default eps rounds
    # to zero there (only Adam and RMSprop reject such an eps).
    helpers.check_decreases(lambda: optimizers.AdaGrad(lr=0.1), numpy.float16)


def test_float16_with_larger_eps(helpers):
    helpers.check_decreases(lambda: optimizers.AdaGrad(lr=0.1, eps=1e-4), numpy.float16)


def test_update_matches_formula(helpers):
    rng = numpy.random.RandomState(5)
    w0 = rng.randn(5)
    grads = rng.randn(3, 5)
    w, rule = helpers.one_step(lambda: optimizers.AdaGrad(lr=0.2, eps=1e-3), w0, grads)
    expected, h = w0.copy(), numpy.zeros(5)
    for g in grads:
        h = h + g * g
        expected = expected - 0.2 * g / (numpy.sqrt(h) + 1e-3)
    numpy.testing.assert_allclose(w, expected, rtol=1e-12)
    numpy.testing.assert_allclose(rule.state["h"], h, rtol=1e-12)


def test_serialize_round_trip(helpers):
    helpers.check_serialize_round_trip(lambda: optimizers.AdaGrad(lr=0.1))


def test_bad_eps():
    with pytest.raises(ValueError, match="AdaGrad: eps must be non-negative"):
        optimizers.AdaGrad(eps=-1.0)
