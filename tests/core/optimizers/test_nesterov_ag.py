import numpy
import pytest

from chainer import optimizers


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_quadratic_decreases(helpers, dtype):
    helpers.check_decreases(lambda: optimizers.NesterovAG(lr=0.5), dtype)


def test_update_matches_formula(helpers):
    rng = numpy.random.RandomState(4)
    w0 = rng.randn(6)
    grads = rng.randn(3, 6)
    lr, mu = 0.05, 0.9
    w, rule = helpers.one_step(
        lambda: optimizers.NesterovAG(lr=lr, momentum=mu), w0, grads
    )
    expected, v = w0.copy(), numpy.zeros(6)
    for g in grads:
        v = mu * v - lr * g
        expected = expected + mu * mu * v - (1 + mu) * lr * g
    numpy.testing.assert_allclose(w, expected, rtol=1e-12)
    numpy.testing.assert_allclose(rule.state["v"], v, rtol=1e-12)


def test_serialize_round_trip(helpers):
    helpers.check_serialize_round_trip(lambda: optimizers.NesterovAG())


def test_bad_momentum():
    with pytest.raises(TypeError, match="NesterovAG: momentum"):
        optimizers.NesterovAG(momentum="high")
