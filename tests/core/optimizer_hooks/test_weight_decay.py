import numpy
import pytest

from chainer import optimizer_hooks
from chainer import optimizers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_adds_scaled_param(make_model, dtype):
    model = make_model(dtype, numpy.ones((2, 2)), numpy.ones(2))
    opt = optimizers.SGD(lr=0.0).setup(model)
    opt.add_hook(optimizer_hooks.WeightDecay(0.5))
    opt.update()
    numpy.testing.assert_allclose(model.w.grad, 1 + 0.5 * model.w.array)
    numpy.testing.assert_allclose(model.b.grad, [2.5, -1.0])
    assert model.w.grad.dtype == dtype


def test_sgd_step(make_model):
    model = make_model(numpy.float64, numpy.zeros((2, 2)), numpy.zeros(2))
    opt = optimizers.SGD(lr=0.1).setup(model)
    opt.add_hook(optimizer_hooks.WeightDecay(0.2))
    opt.update()
    numpy.testing.assert_allclose(model.b.array, [3.0 * 0.98, -4.0 * 0.98])


def test_as_update_rule_hook(make_model):
    model = make_model(numpy.float32, numpy.zeros((2, 2)), numpy.zeros(2))
    opt = optimizers.SGD(lr=1.0).setup(model)
    model.b.update_rule.add_hook(optimizer_hooks.WeightDecay(0.5))
    opt.update()
    numpy.testing.assert_allclose(model.b.array, [1.5, -2.0])
    numpy.testing.assert_allclose(model.w.array, [[1.0, -2.0], [0.5, 0.0]])


def test_attributes():
    hook = optimizer_hooks.WeightDecay(0.1)
    assert hook.rate == 0.1
    assert hook.name == "WeightDecay"
    assert hook.timing == "pre"
    assert hook.call_for_each_param


def test_post_timing(make_model):
    model = make_model(numpy.float32, numpy.ones((2, 2)), numpy.ones(2))
    opt = optimizers.SGD(lr=1.0).setup(model)
    hook = optimizer_hooks.WeightDecay(1.0)
    hook.timing = "post"
    opt.add_hook(hook)
    opt.update()
    # the update used the raw gradient; the decay was added afterwards
    numpy.testing.assert_allclose(model.b.array, [2.0, -5.0])
    numpy.testing.assert_allclose(model.b.grad, [3.0, -4.0])


def test_bad_rate():
    with pytest.raises(TypeError, match="WeightDecay: rate must be a real number"):
        optimizer_hooks.WeightDecay("0.1")
