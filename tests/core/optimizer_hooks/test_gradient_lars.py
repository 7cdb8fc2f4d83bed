import numpy
import pytest

from chainer import optimizer_hooks
from chainer import optimizers


def _expected(p, g, threshold, weight_decay, eps):
    p_norm = numpy.linalg.norm(p)
    g_norm = numpy.linalg.norm(g)
    local_rate = p_norm / (eps + g_norm + weight_decay * p_norm)
    rate = local_rate if local_rate > threshold else 1.0
    return rate * (g + weight_decay * p)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    ("threshold", "weight_decay"), [(0.01, 0.0), (0.01, 0.1), (100.0, 0.1)]
)
def test_rescales_each_param(make_model, dtype, threshold, weight_decay):
    w_grad = numpy.array([[0.1, 0.2], [-0.3, 0.4]])
    b_grad = numpy.array([20.0, 10.0])
    model = make_model(dtype, w_grad, b_grad)
    w0, b0 = model.w.array.astype("f8"), model.b.array.astype("f8")
    opt = optimizers.SGD(lr=0.0).setup(model)
    opt.add_hook(optimizer_hooks.GradientLARS(threshold, weight_decay))
    opt.update()
    rtol = 1e-2 if dtype == numpy.float16 else 1e-5
    numpy.testing.assert_allclose(
        model.w.grad, _expected(w0, w_grad, threshold, weight_decay, 1e-9), rtol=rtol
    )
    numpy.testing.assert_allclose(
        model.b.grad, _expected(b0, b_grad, threshold, weight_decay, 1e-9), rtol=rtol
    )
    assert model.w.grad.dtype == dtype


def test_zero_param_keeps_gradient(make_model):
    model = make_model(numpy.float32, numpy.ones((2, 2)), numpy.ones(2))
    model.b.array[...] = 0
    hook = optimizer_hooks.GradientLARS()
    hook(model.b.update_rule, model.b)
    numpy.testing.assert_array_equal(model.b.grad, [1.0, 1.0])


def test_attributes():
    hook = optimizer_hooks.GradientLARS()
    assert (hook.threshold, hook.weight_decay, hook.eps) == (0.01, 0.0, 1e-9)
    assert (hook.name, hook.timing) == ("GradientLARS", "pre")
    assert hook.call_for_each_param


def test_bad_arguments():
    with pytest.raises(ValueError, match="eps must be non-negative"):
        optimizer_hooks.GradientLARS(eps=-1.0)
    with pytest.raises(TypeError, match="weight_decay must be a real number"):
        optimizer_hooks.GradientLARS(weight_decay="0")
