import numpy
import pytest

from chainer import optimizers


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_quadratic_decreases(helpers, dtype):
    helpers.check_decreases(lambda: optimizers.CorrectedMomentumSGD(lr=0.5), dtype)


def test_update_matches_formula(helpers):
    rng = numpy.random.RandomState(3)
    w0 = rng.randn(4)
    grads = rng.randn(3, 4)
    w, rule = helpers.one_step(
        lambda: optimizers.CorrectedMomentumSGD(lr=0.1, momentum=0.7), w0, grads
    )
    expected, v = w0.copy(), numpy.zeros(4)
    for g in grads:
        v = 0.7 * v - g
        expected = expected + 0.1 * v
    numpy.testing.assert_allclose(w, expected, rtol=1e-12)
    numpy.testing.assert_allclose(rule.state["v"], v, rtol=1e-12)


def test_lr_change_keeps_velocity(helpers):
    # The velocity does not contain lr, so it is unaffected by an lr change.
    link = helpers.make_link(numpy.float64)
    opt = optimizers.CorrectedMomentumSGD(lr=0.1).setup(link)
    helpers.set_grad(link, numpy.ones((3, 4)))
    opt.update()
    opt.lr = 10.0
    numpy.testing.assert_allclose(link.w.update_rule.state["v"], -numpy.ones((3, 4)))


def test_serialize_round_trip(helpers):
    helpers.check_serialize_round_trip(lambda: optimizers.CorrectedMomentumSGD())


def test_bad_lr():
    with pytest.raises(TypeError, match="CorrectedMomentumSGD: lr"):
        optimizers.CorrectedMomentumSGD(lr=[0.1])
