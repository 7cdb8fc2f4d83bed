import math

import numpy
import pytest

from chainer import optimizer_hooks
from chainer import optimizers
from chainer.optimizer_hooks import gradient_noise


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_default_noise_is_seeded_gaussian(make_model, dtype):
    model = make_model(dtype, numpy.zeros((2, 2)), numpy.zeros(2))
    opt = optimizers.SGD(lr=0.0).setup(model)
    opt.add_hook(optimizer_hooks.GradientNoise(0.3))
    numpy.random.seed(0)
    opt.update()
    # both params' rules are at t=0 during the pre hook: std = sqrt(0.3)
    numpy.random.seed(0)
    std = math.sqrt(0.3)
    # Link.params() yields parameters sorted by name: b, then w.
    expected_b = numpy.random.normal(0, std, (2,)).astype(dtype)
    expected_w = numpy.random.normal(0, std, (2, 2)).astype(dtype)
    numpy.testing.assert_allclose(model.w.grad, expected_w, rtol=1e-6)
    numpy.testing.assert_allclose(model.b.grad, expected_b, rtol=1e-6)
    assert model.w.grad.dtype == dtype


def test_exponential_decay_noise_std():
    class Hook:
        eta = 1.0

    class Rule:
        t = 99

    numpy.random.seed(1)
    noise = gradient_noise.exponential_decay_noise(
        numpy, (20000,), numpy.float32, Hook(), Rule()
    )
    assert noise.dtype == numpy.float32
    expected = math.sqrt(1.0 / 100**0.55)
    assert noise.std() == pytest.approx(expected, rel=0.03)


def test_custom_noise_func(make_model):
    calls = []

    def noise_func(xp, shape, dtype, hook, rule):
        calls.append((xp, shape, dtype, hook.eta, rule.t))
        return xp.full(shape, 0.5, dtype=dtype)

    model = make_model(numpy.float32, numpy.zeros((2, 2)), numpy.ones(2))
    opt = optimizers.SGD(lr=0.0).setup(model)
    opt.add_hook(optimizer_hooks.GradientNoise(0.01, noise_func=noise_func))
    opt.update()
    numpy.testing.assert_allclose(model.b.grad, [1.5, 1.5])
    assert sorted(c[1] for c in calls) == [(2,), (2, 2)]
    assert calls[0][::2] == (numpy, numpy.float32, 0)
    assert calls[0][3] == 0.01


def test_attributes():
    hook = optimizer_hooks.GradientNoise(0.01)
    assert hook.eta == 0.01
    assert hook.noise_func is gradient_noise.exponential_decay_noise
    assert (hook.name, hook.timing) == ("GradientNoise", "pre")
    assert hook.call_for_each_param


def test_bad_arguments():
    with pytest.raises(ValueError, match="eta must be non-negative"):
        optimizer_hooks.GradientNoise(-1.0)
    with pytest.raises(TypeError, match="noise_func must be callable"):
        optimizer_hooks.GradientNoise(0.1, noise_func=3)
