import numpy
import pytest

from chainer import optimizer_hooks
from chainer import optimizers


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_clips_elements(make_model, dtype):
    model = make_model(dtype, [[-3.0, 0.5], [2.0, -0.2]], [10.0, -10.0])
    opt = optimizers.SGD(lr=0.0).setup(model)
    grad = model.w.grad
    opt.add_hook(optimizer_hooks.GradientHardClipping(-1.0, 1.5))
    opt.update()
    numpy.testing.assert_allclose(
        model.w.grad, numpy.array([[-1.0, 0.5], [1.5, -0.2]], dtype)
    )
    numpy.testing.assert_allclose(model.b.grad, [1.5, -1.0])
    assert model.w.grad is grad


def test_respects_loss_scale(make_model):
    model = make_model(numpy.float32, [[-3.0, 0.5], [2.0, -0.2]], [8.0, -8.0])
    model.b._loss_scale = 4.0
    hook = optimizer_hooks.GradientHardClipping(-1.0, 1.0)
    hook(model.b.update_rule, model.b)
    numpy.testing.assert_allclose(model.b.grad, [4.0, -4.0])


def test_attributes():
    hook = optimizer_hooks.GradientHardClipping(-0.5, 0.5)
    assert (hook.lower_bound, hook.upper_bound) == (-0.5, 0.5)
    assert (hook.name, hook.timing) == ("GradientHardClipping", "pre")
    assert hook.call_for_each_param


def test_bad_bounds():
    with pytest.raises(ValueError, match="lower_bound must not exceed upper_bound"):
        optimizer_hooks.GradientHardClipping(1.0, -1.0)
    with pytest.raises(TypeError, match="upper_bound must be a real number"):
        optimizer_hooks.GradientHardClipping(-1.0, "1")
