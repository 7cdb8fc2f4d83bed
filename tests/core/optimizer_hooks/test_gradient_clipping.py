import math

import numpy
import pytest

from chainer import optimizer_hooks
from chainer import optimizers


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_rescales_to_threshold(make_model, dtype):
    w_grad = numpy.array([[3.0, 0.0], [0.0, 0.0]])
    b_grad = numpy.array([0.0, 4.0])
    model = make_model(dtype, w_grad, b_grad)
    opt = optimizers.SGD(lr=0.0).setup(model)
    opt.add_hook(optimizer_hooks.GradientClipping(1.0))
    opt.update()
    numpy.testing.assert_allclose(model.w.grad, w_grad / 5, rtol=1e-3)
    numpy.testing.assert_allclose(model.b.grad, b_grad / 5, rtol=1e-3)
    total = math.sqrt(
        float((model.w.grad.astype("f8") ** 2).sum())
        + float((model.b.grad.astype("f8") ** 2).sum())
    )
    assert total == pytest.approx(1.0, rel=1e-3)


def test_below_threshold_unchanged(make_model):
    model = make_model(numpy.float32, [[0.1, 0.0], [0.0, 0.0]], [0.0, 0.2])
    opt = optimizers.SGD(lr=0.0).setup(model)
    opt.add_hook(optimizer_hooks.GradientClipping(1.0))
    opt.update()
    numpy.testing.assert_array_equal(model.b.grad, numpy.float32([0.0, 0.2]))


def test_zero_gradients(make_model):
    model = make_model(numpy.float32, numpy.zeros((2, 2)), numpy.zeros(2))
    hook = optimizer_hooks.GradientClipping(1.0)
    opt = optimizers.SGD().setup(model)
    hook(opt)
    numpy.testing.assert_array_equal(model.b.grad, [0.0, 0.0])


def test_norm_uses_unscaled_gradients(make_model):
    model = make_model(numpy.float32, numpy.zeros((2, 2)), [0.0, 8.0])
    model.b._loss_scale = 16.0  # true norm 0.5, below the threshold
    model.w._loss_scale = 16.0
    opt = optimizers.SGD().setup(model)
    optimizer_hooks.GradientClipping(1.0)(opt)
    numpy.testing.assert_array_equal(model.b.grad, [0.0, 8.0])


def test_float16_large_gradients(make_model):
    # the squared norm (2 * 60000^2) would overflow in float16
    model = make_model(numpy.float16, numpy.zeros((2, 2)), [60000.0, 60000.0])
    opt = optimizers.SGD().setup(model)
    optimizer_hooks.GradientClipping(1.0)(opt)
    numpy.testing.assert_allclose(model.b.grad, [0.7071, 0.7071], rtol=1e-3)


def test_attributes():
    hook = optimizer_hooks.GradientClipping(2.0)
    assert (hook.threshold, hook.name, hook.timing) == (2.0, "GradientClipping", "pre")
    assert not getattr(hook, "call_for_each_param", False)


def test_bad_threshold():
    with pytest.raises(ValueError, match="threshold must be positive"):
        optimizer_hooks.GradientClipping(0)
    with pytest.raises(TypeError, match="threshold must be a real number"):
        optimizer_hooks.GradientClipping("1")
