import numpy
import pytest

from chainer import optimizers
from chainer.optimizers import sgd


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_quadratic_decreases(helpers, dtype):
    helpers.check_decreases(lambda: optimizers.SGD(lr=1.0), dtype)


def test_update_matches_formula(helpers):
    rng = numpy.random.RandomState(1)
    w0 = rng.randn(5)
    grads = rng.randn(3, 5)
    w, _ = helpers.one_step(lambda: optimizers.SGD(lr=0.3), w0, grads)
    expected = w0.copy()
    for g in grads:
        expected -= 0.3 * g
    numpy.testing.assert_allclose(w, expected, rtol=1e-12)


def test_serialize_round_trip(helpers):
    store = helpers.check_serialize_round_trip(lambda: optimizers.SGD(lr=0.5))
    assert set(store) == {"t", "epoch", "w/t"}


def test_lr_proxy_and_rule_override():
    opt = optimizers.SGD(lr=0.1)
    assert opt.lr == 0.1
    opt.lr = 0.2
    assert opt.hyperparam.lr == 0.2
    rule = opt.create_update_rule()
    assert isinstance(rule, sgd.SGDRule)
    assert rule.hyperparam.lr == 0.2
    opt.lr = 0.3
    assert rule.hyperparam.lr == 0.3
    assert sgd.SGDRule(lr=0.5).hyperparam.lr == 0.5
    assert sgd.SGDRule().hyperparam.lr == 0.01


def test_default():
    assert optimizers.SGD().lr == 0.01


def test_bad_lr():
    with pytest.raises(TypeError, match="lr must be a real number"):
        optimizers.SGD(lr="0.1")
