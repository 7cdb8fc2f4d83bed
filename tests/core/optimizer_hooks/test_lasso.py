import numpy
import pytest

from chainer import optimizer_hooks
from chainer import optimizers


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_adds_scaled_sign(make_model, dtype):
    model = make_model(dtype, numpy.ones((2, 2)), numpy.ones(2))
    opt = optimizers.SGD(lr=0.0).setup(model)
    opt.add_hook(optimizer_hooks.Lasso(0.25))
    opt.update()
    numpy.testing.assert_allclose(model.w.grad, [[1.25, 0.75], [1.25, 1.0]])
    numpy.testing.assert_allclose(model.b.grad, [1.25, 0.75])
    assert model.w.grad.dtype == dtype


def test_attributes():
    hook = optimizer_hooks.Lasso(0.1)
    assert (hook.rate, hook.name, hook.timing) == (0.1, "Lasso", "pre")
    assert hook.call_for_each_param


def test_bad_rate():
    with pytest.raises(TypeError, match="Lasso: rate must be a real number"):
        optimizer_hooks.Lasso(None)
