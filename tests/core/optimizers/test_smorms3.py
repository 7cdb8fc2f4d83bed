import numpy
import pytest

from chainer import optimizers


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_quadratic_decreases(helpers, dtype):
    helpers.check_decreases(lambda: optimizers.SMORMS3(lr=0.05), dtype)


def test_float16(helpers):
    helpers.check_decreases(
        lambda: optimizers.SMORMS3(lr=0.05), numpy.float16, fp32_update=True
    )
    # As in Chainer, the default eps (1e-16, zero in float16) is accepted.
    helpers.check_decreases(lambda: optimizers.SMORMS3(lr=0.05), numpy.float16)


def test_update_matches_formula(helpers):
    rng = numpy.random.RandomState(9)
    w0 = rng.randn(5)
    grads = rng.randn(4, 5)
    lr, eps = 0.01, 1e-8
    w, rule = helpers.one_step(lambda: optimizers.SMORMS3(lr=lr, eps=eps), w0, grads)
    expected = w0.copy()
    mem, gm, g2 = numpy.ones(5), numpy.zeros(5), numpy.zeros(5)
    for g in grads:
        r = 1 / (mem + 1)
        gm = (1 - r) * gm + r * g
        g2 = (1 - r) * g2 + r * g * g
        x = gm * gm / (g2 + eps)
        expected = expected - g * numpy.minimum(x, lr) / (numpy.sqrt(g2) + eps)
        mem = 1 + mem * (1 - x)
    numpy.testing.assert_allclose(w, expected, rtol=1e-10)
    for key, value in (("mem", mem), ("g", gm), ("g2", g2)):
        numpy.testing.assert_allclose(rule.state[key], value, rtol=1e-10)


def test_serialize_round_trip(helpers):
    store = helpers.check_serialize_round_trip(lambda: optimizers.SMORMS3())
    assert {"w/mem", "w/g", "w/g2"} <= set(store)


def test_bad_lr():
    with pytest.raises(TypeError, match="SMORMS3: lr"):
        optimizers.SMORMS3(lr=None)
