"""The seeds' old-style Function examples and a test-mode aware function.

References read ``000:1028`` = line 1028 of the seed file starting with
``000_``. Seeds 000 and 001 lost their minus signs; the snippets here have them
restored.
"""

import numpy as np
import pytest

import chainer
from chainer import backend
from chainer.backends import cuda


def _uniform_variables(n, shape=(3, 2)):
    return [
        chainer.Variable(np.random.uniform(-1, 1, shape).astype(np.float32))
        for _ in range(n)
    ]


# ---------------------------------------------------------------------------
# Old-style functions (Function)
# ---------------------------------------------------------------------------


class OldMulAdd(chainer.Function):
    # 000:1041-1057, 001:1095-1108: CPU methods on arrays.

    def forward_cpu(self, inputs):
        x, y, z = inputs
        w = x * y + z
        return (w,)

    def backward_cpu(self, inputs, grad_outputs):
        x, y, _z = inputs
        (gw,) = grad_outputs
        gx = y * gw
        gy = x * gw
        gz = gw
        return gx, gy, gz


class UnifiedMulAdd(chainer.Function):
    # 000:1100-1115, 001:1166-1181: forward/backward shared by CPU and GPU.

    def forward(self, inputs):
        x, y, z = inputs
        w = x * y + z
        return (w,)

    def backward(self, inputs, grad_outputs):
        x, y, _z = inputs
        (gw,) = grad_outputs
        gx = y * gw
        gy = x * gw
        gz = gw
        return gx, gy, gz


@pytest.mark.parametrize("func_class", [OldMulAdd, UnifiedMulAdd])
def test_old_style_muladd_is_called_like_a_function(func_class):
    # 000:1118-1126, 001:1186-1192: w = MulAdd()(x, y, z) and the wrapper.
    x, y, z = _uniform_variables(3)

    def muladd_old(x, y, z):
        return func_class()(x, y, z)

    w = muladd_old(x, y, z)
    assert isinstance(w, chainer.Variable)
    np.testing.assert_allclose(w.array, x.array * y.array + z.array)
    w.grad = np.ones((3, 2), dtype=np.float32)
    w.backward()
    np.testing.assert_allclose(x.grad, y.array)
    np.testing.assert_allclose(y.grad, x.array)
    np.testing.assert_allclose(z.grad, np.ones((3, 2), dtype=np.float32))
    # 002:99-101 counterpart: the creator of an old-style output is the Function.
    assert isinstance(w.creator, func_class)


def test_slides_muladd_with_grad_outputs_indexing():
    # 003:355-383: gw = grad_outputs[0].
    class SlidesMulAdd(chainer.Function):
        def forward(self, inputs):
            x, y, z = inputs
            w = x * y + z
            return (w,)

        def backward(self, inputs, grad_outputs):
            x, y, _z = inputs
            gw = grad_outputs[0]
            gx = y * gw
            gy = x * gw
            gz = gw
            return gx, gy, gz

    x, y, z = _uniform_variables(3)
    w = SlidesMulAdd()(x, y, z)
    w.grad = np.full((3, 2), 3.0, dtype=np.float32)
    w.backward()
    np.testing.assert_allclose(x.grad, 3 * y.array)


class ExpAddCpu(chainer.Function):
    # 000:1132-1160, 001:1195-1225 (CPU half; the GPU half needs CuPy).

    def forward_cpu(self, inputs):
        x, y = inputs
        z = np.exp(x) + np.exp(y)
        return (z,)

    def backward_cpu(self, inputs, grad_outputs):
        x, y = inputs
        (gz,) = grad_outputs
        gx = gz * np.exp(x)
        gy = gz * np.exp(y)
        return gx, gy


class ExpAddUnified(chainer.Function):
    # 000:1175-1190 (backend.get_array_module), 001:1238-1252 (cuda.*).

    def __init__(self, get_array_module):
        self._get_array_module = get_array_module

    def forward(self, inputs):
        xp = self._get_array_module(*inputs)
        x, y = inputs
        z = xp.exp(x) + xp.exp(y)
        return (z,)

    def backward(self, inputs, grad_outputs):
        xp = self._get_array_module(*inputs)
        x, y = inputs
        (gz,) = grad_outputs
        gx = gz * xp.exp(x)
        gy = gz * xp.exp(y)
        return gx, gy


@pytest.mark.parametrize(
    "make",
    [
        ExpAddCpu,
        lambda: ExpAddUnified(backend.get_array_module),
        lambda: ExpAddUnified(cuda.get_array_module),
    ],
    ids=["cpu-methods", "backend-xp", "cuda-xp"],
)
def test_old_style_expadd(make):
    # 000:1132-1190, 001:1195-1252.
    x, y = _uniform_variables(2)
    z = make()(x, y)
    np.testing.assert_allclose(z.array, np.exp(x.array) + np.exp(y.array), rtol=1e-6)
    z.grad = np.ones((3, 2), dtype=np.float32)
    z.backward()
    np.testing.assert_allclose(x.grad, np.exp(x.array), rtol=1e-6)
    np.testing.assert_allclose(y.grad, np.exp(y.array), rtol=1e-6)


def test_old_style_default_backward_means_not_differentiable():
    # 001:1843-1845: default backward returns None -> no gradient flows.
    class Forward(chainer.Function):
        def forward(self, inputs):
            return (inputs[0] * 2,)

    x = chainer.Variable(np.ones(3, dtype=np.float32))
    y = Forward()(x)
    y.grad = np.ones(3, dtype=np.float32)
    y.backward()
    assert x.grad is None


def test_old_style_forward_must_return_a_tuple():
    # 000:1038-1039 warning: "return a tuple of arrays even if ... one".
    class NoTuple(chainer.Function):
        def forward(self, inputs):
            return inputs[0] * 2

    with pytest.raises(TypeError):
        NoTuple()(chainer.Variable(np.ones(3, dtype=np.float32)))


def test_branching_graph_accumulates_gradients():
    # 001:1820-1834: y = f(x), z = g(x); the gradients from f and g add up.
    class Identity(chainer.Function):
        def forward(self, inputs):
            return (inputs[0].copy(),)

        def backward(self, inputs, grad_outputs):
            return (grad_outputs[0],)

    x = chainer.Variable(np.zeros(10))
    y = Identity()(x)
    z = Identity()(x)
    loss = y * 2 + z * 3
    loss.grad = np.ones(10)
    loss.backward()
    np.testing.assert_array_equal(x.grad, np.full(10, 5.0))


# ---------------------------------------------------------------------------
# Training/test mode inside a function
# ---------------------------------------------------------------------------


def dropout(x):
    # 000:789-800: the test-mode aware dropout.
    if not chainer.config.train:
        return x
    xp = backend.get_array_module(x.array)
    mask = 2 * (xp.random.rand(*x.shape) > 0.5).astype(x.dtype)
    return x * mask


def test_dropout_follows_chainer_config_train():
    # 000:778-802: identity in test mode, masked and doubled in training.
    x = chainer.Variable(np.random.uniform(1, 2, (50, 4)).astype(np.float32))
    assert chainer.config.train is True
    y = dropout(x)
    assert y is not x
    assert y.dtype == np.float32
    kept = y.array != 0
    np.testing.assert_allclose(y.array[kept], 2 * x.array[kept])
    assert 0 < kept.sum() < kept.size
    with chainer.using_config("train", False):
        assert dropout(x) is x
    assert chainer.config.train is True
