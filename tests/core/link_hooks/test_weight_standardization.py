import numpy
import pytest

import chainer
from chainer import initializers
from chainer import primitive_ops
from chainer.link_hooks import WeightStandardization


class Dense(chainer.Link):
    """y = x @ W.T, with W lazily initialized when in_size is None."""

    def __init__(self, in_size, out_size, dtype=numpy.float32):
        super().__init__()
        self.out_size = out_size
        with self.init_scope():
            self.W = chainer.Parameter(initializers.Normal(1.0, dtype=dtype))
            if in_size is not None:
                self.W.initialize((out_size, in_size))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((self.out_size, x.shape[1]))
        return x @ self.W.T


class Conv(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(initializers.Normal(1.0), (4, 2, 3, 3))

    def forward(self, x):
        return x @ self.W.reshape(4, -1).T


def standardize(W, eps=1e-5, axis=0):
    axes = tuple(i for i in range(W.ndim) if i != axis)
    mean = W.mean(axis=axes, keepdims=True)
    var = W.var(axis=axes, keepdims=True)
    return (W - mean) / numpy.sqrt(var + eps)


def test_forward_uses_the_standardized_weight():
    link = Dense(5, 3)
    weight = link.W
    link.add_hook(WeightStandardization())
    x = numpy.random.randn(2, 5).astype(numpy.float32)
    y = link(x)
    expected = x @ standardize(link.W.array).T
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)
    assert link.W is weight


def test_convolution_weight_is_standardized_per_output_channel():
    link = Conv()
    link.add_hook(WeightStandardization(eps=1e-3))
    x = numpy.random.randn(2, 18).astype(numpy.float32)
    y = link(x)
    expected = x @ standardize(link.W.array, eps=1e-3).reshape(4, -1).T
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)


def test_gradient_reaches_the_weight():
    link = Dense(3, 2, dtype=numpy.float64)
    link.add_hook(WeightStandardization())
    x = numpy.random.randn(4, 3)
    c = numpy.random.randn(4, 2)
    (gW,) = chainer.grad([primitive_ops.sum(link(x) * c)], [link.W])

    def f(W):
        return ((x @ standardize(W).T) * c).sum()

    W = link.W.array
    eps = 1e-6
    numeric = numpy.zeros_like(W)
    for idx in numpy.ndindex(W.shape):
        d = numpy.zeros_like(W)
        d[idx] = eps
        numeric[idx] = (f(W + d) - f(W - d)) / (2 * eps)
    numpy.testing.assert_allclose(gW.array, numeric, rtol=1e-4, atol=1e-6)


def test_lazy_weight():
    link = Dense(None, 3)
    link.add_hook(WeightStandardization())
    x = numpy.random.randn(2, 4).astype(numpy.float32)
    y = link(x)
    assert link.W.shape == (3, 4)
    numpy.testing.assert_allclose(
        y.array, x @ standardize(link.W.array).T, rtol=1e-5, atol=1e-5
    )


def test_bad_arguments():
    with pytest.raises(ValueError, match="eps"):
        WeightStandardization(eps=-1.0)
    with pytest.raises(TypeError, match="weight_name"):
        WeightStandardization(weight_name=None)
    with pytest.raises(TypeError):
        WeightStandardization(1e-5)  # keyword-only, as in Chainer
    with pytest.raises(ValueError, match="'V'"):
        Dense(2, 2).add_hook(WeightStandardization(weight_name="V"))


def test_one_dimensional_weight_is_rejected():
    link = chainer.Link()
    with link.init_scope():
        link.W = chainer.Parameter(numpy.ones(3, numpy.float32))

    def forward(x):
        return x * link.W

    link.forward = forward
    link.add_hook(WeightStandardization())
    with pytest.raises(ValueError, match="2 dims"):
        link(numpy.ones(3, numpy.float32))


def test_not_a_context_manager():
    with pytest.raises(RuntimeError, match="add_hook"), WeightStandardization():
        pass


def test_custom_name():
    link = Dense(2, 2).add_hook(WeightStandardization(name="ws"))
    assert list(link.local_link_hooks) == ["ws"]
