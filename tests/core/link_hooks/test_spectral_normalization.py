import numpy
import pytest

import chainer
from chainer import initializers
from chainer import primitive_ops
from chainer.link_hooks import SpectralNormalization


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
    """A stand-in with a 4-d weight (out, in, kh, kw); forward flattens it."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(initializers.Normal(1.0), (5, 2, 3, 3))

    def forward(self, x):
        return x @ self.W.reshape(5, -1).T


class Deconvolution2D(chainer.Link):
    """Named like the real link: its weight is (in, out, kh, kw)."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(initializers.Normal(1.0), (2, 5, 3, 3))

    def forward(self, x):
        return x @ self.W.transpose(1, 0, 2, 3).reshape(5, -1).T


def largest_singular_value(matrix):
    return numpy.linalg.svd(matrix.astype(numpy.float64), compute_uv=False)[0]


def test_sigma_matches_the_largest_singular_value():
    link = Dense(4, 3)
    hook = SpectralNormalization(n_power_iteration=100)
    link.add_hook(hook)
    x = numpy.random.randn(2, 4).astype(numpy.float32)
    y = link(x)
    W = link.W.array
    sigma = largest_singular_value(W)
    numpy.testing.assert_allclose(y.array, x @ (W / sigma).T, rtol=1e-4, atol=1e-5)
    # sigma = u^T W v with the stored vectors.
    u = getattr(link, hook.vector_name)
    numpy.testing.assert_allclose(u @ W @ hook.v, sigma, rtol=1e-4)


def test_power_iteration_converges_across_calls():
    link = Dense(6, 5)
    hook = SpectralNormalization()
    link.add_hook(hook)
    x = numpy.eye(6, dtype=numpy.float32)
    for _ in range(100):
        y = link(x)
    # The rows of y are the columns of W_sn; its spectral norm tends to 1.
    numpy.testing.assert_allclose(largest_singular_value(y.array), 1.0, rtol=1e-3)


def test_weight_is_a_parameter_again_after_forward():
    link = Dense(3, 2)
    weight = link.W
    link.add_hook(SpectralNormalization())
    link(numpy.ones((1, 3), numpy.float32))
    assert link.W is weight
    assert [p for p in link.params()] == [weight]


def test_gradient_reaches_the_weight():
    link = Dense(3, 2, dtype=numpy.float64)
    hook = SpectralNormalization(n_power_iteration=50)
    link.add_hook(hook)
    x = numpy.random.randn(4, 3)
    with chainer.using_config("train", False):
        (gW,) = chainer.grad([primitive_ops.sum(link(x))], [link.W])

    # u and v are constants of the graph; once converged, d(u^T W v)/dW is
    # the derivative of the exact largest singular value.
    def f(W):
        return (x @ (W / largest_singular_value(W)).T).sum()

    W = link.W.array
    eps = 1e-6
    numeric = numpy.zeros_like(W)
    for idx in numpy.ndindex(W.shape):
        d = numpy.zeros_like(W)
        d[idx] = eps
        numeric[idx] = (f(W + d) - f(W - d)) / (2 * eps)
    numpy.testing.assert_allclose(gW.array, numeric, rtol=1e-4, atol=1e-6)


def test_u_is_updated_only_in_training():
    link = Dense(4, 3)
    hook = SpectralNormalization()
    link.add_hook(hook)
    u0 = getattr(link, hook.vector_name).copy()
    x = numpy.ones((1, 4), numpy.float32)
    with chainer.using_config("train", False):
        link(x)
    numpy.testing.assert_array_equal(getattr(link, hook.vector_name), u0)
    link(x)
    assert not numpy.array_equal(getattr(link, hook.vector_name), u0)


def test_u_is_a_persistent_value():
    link = Dense(4, 3)
    hook = SpectralNormalization()
    link.add_hook(hook)
    assert hook.vector_name == "W_u"
    assert "W_u" in link._persistent
    assert link.W_u.shape == (3,)
    assert link.W_u.dtype == numpy.float32
    from chainer import serializers

    saver = serializers.DictionarySerializer()
    saver.save(link)
    assert set(saver.target) == {"W", "W_u"}


def test_lazy_weight_is_initialized_on_first_forward():
    link = Dense(None, 3)
    hook = SpectralNormalization(n_power_iteration=100)
    link.add_hook(hook)
    assert not hasattr(link, "W_u")
    x = numpy.random.randn(2, 5).astype(numpy.float32)
    y = link(x)
    assert link.W.shape == (3, 5)
    assert link.W_u.shape == (3,)
    sigma = largest_singular_value(link.W.array)
    numpy.testing.assert_allclose(y.array, x @ (link.W.array / sigma).T, rtol=1e-4)


def test_use_gamma_and_factor():
    link = Dense(4, 3)
    sigma = largest_singular_value(link.W.array)
    hook = SpectralNormalization(n_power_iteration=100, use_gamma=True, factor=2.0)
    link.add_hook(hook)
    assert isinstance(link.gamma, chainer.Parameter)
    assert link.gamma.shape == ()
    numpy.testing.assert_allclose(link.gamma.array, sigma, rtol=1e-5)
    assert "/gamma" in dict(link.namedparams())
    x = numpy.random.randn(2, 4).astype(numpy.float32)
    y = link(x)
    expected = x @ (sigma * link.W.array / (sigma / 2.0)).T
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)


def test_four_dimensional_weight():
    link = Conv()
    hook = SpectralNormalization(n_power_iteration=1000)
    link.add_hook(hook)
    assert hook.axis == 0
    assert link.W_u.shape == (5,)
    x = numpy.random.randn(2, 18).astype(numpy.float32)
    y = link(x)
    matrix = link.W.array.reshape(5, -1)
    sigma = largest_singular_value(matrix)
    numpy.testing.assert_allclose(y.array, x @ (matrix / sigma).T, rtol=1e-4)


def test_deconvolution_uses_axis_one():
    link = Deconvolution2D()
    hook = SpectralNormalization(n_power_iteration=1000)
    link.add_hook(hook)
    assert hook.axis == 1
    assert link.W_u.shape == (5,)
    x = numpy.random.randn(2, 18).astype(numpy.float32)
    y = link(x)
    matrix = link.W.array.transpose(1, 0, 2, 3).reshape(5, -1)
    sigma = largest_singular_value(matrix)
    numpy.testing.assert_allclose(y.array, x @ (matrix / sigma).T, rtol=1e-4)


def test_delete_hook_removes_u_and_gamma():
    link = Dense(4, 3)
    hook = SpectralNormalization(use_gamma=True)
    link.add_hook(hook)
    link.delete_hook(hook.name)
    assert not hasattr(link, "W_u")
    assert not hasattr(link, "gamma")
    assert [name for name, _ in link.namedparams()] == ["/W"]
    assert "W_u" not in link._persistent


def test_recovers_after_a_failed_forward():
    link = Dense(4, 3)
    weight = link.W
    link.add_hook(SpectralNormalization())
    with pytest.raises(Exception):
        link(numpy.ones((1, 7), numpy.float32))
    y = link(numpy.ones((1, 4), numpy.float32))
    assert link.W is weight
    assert y.shape == (1, 3)


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_power_iteration"):
        SpectralNormalization(n_power_iteration=0)
    with pytest.raises(ValueError, match="n_power_iteration"):
        SpectralNormalization(n_power_iteration=1.5)
    with pytest.raises(TypeError, match="weight_name"):
        SpectralNormalization(weight_name=3)
    with pytest.raises(ValueError, match="'V'"):
        Dense(2, 2).add_hook(SpectralNormalization(weight_name="V"))


def test_one_dimensional_weight_is_rejected():
    link = chainer.Link()
    with link.init_scope():
        link.W = chainer.Parameter(numpy.ones(3, numpy.float32))
    with pytest.raises(ValueError, match="2 dims"):
        link.add_hook(SpectralNormalization())


def test_not_a_context_manager():
    with pytest.raises(RuntimeError, match="add_hook"), SpectralNormalization():
        pass


def test_custom_name():
    hook = SpectralNormalization(name="sn")
    link = Dense(2, 2).add_hook(hook)
    assert list(link.local_link_hooks) == ["sn"]
