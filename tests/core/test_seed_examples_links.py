"""The seeds' Link/Chain/ChainList/Sequential examples, run as written.

References read ``000:362`` = line 362 of the seed file starting with
``000_``. ``chainer.links.Linear`` is not part of chainer-core; the seeds' own
educational ``Linear`` link (000:902-925) stands in for it, extended with the
lazy input size the seeds describe (000:386-397).
"""

import math
import warnings

import numpy as np
import pytest

import chainer
from chainer import initializers


class LinearFunction(chainer.FunctionNode):
    # 000:902-915. The seed's backward unpacks ``inputs`` and its wrapper
    # calls the node; in Chainer 7 backward gets target_input_indexes and
    # nodes are applied, so inputs are retained and apply() is used.

    def forward(self, inputs):
        x, W, b = inputs
        self.retain_inputs((0, 1))
        return (x.dot(W.T) + b,)

    def backward(self, target_input_indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        gx = gy @ W
        gW = gy.T @ x
        gb = gy.mean(axis=0) * gy.shape[0]
        return gx, gW, gb


def linear(x, W, b):
    (y,) = LinearFunction().apply((x, W, b))
    return y


class Linear(chainer.Link):
    # 000:916-925; Linear(n) and Linear(None, n) infer the input size.

    def __init__(self, in_size, out_size=None):
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.out_size = out_size
        with self.init_scope():
            self.W = chainer.Parameter(
                initializers.Normal(1.0 / math.sqrt(in_size or 1))
            )
            if in_size is not None:
                self.W.initialize((out_size, in_size))
            self.b = chainer.Parameter(0, (out_size,))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((self.out_size, x.shape[1]))
        return linear(x, self.W, self.b)


def relu(x):
    x = chainer.as_variable(x)
    return x * (x.array > 0).astype(x.dtype)


# ---------------------------------------------------------------------------
# Links
# ---------------------------------------------------------------------------


def test_linear_link_parameters_and_documented_output():
    # 000:362-385, 001:228-252: W random, b zeros; y = x W^T + b with the
    # W printed in the tutorial reproduces the printed y.
    f = Linear(3, 2)
    assert isinstance(f.W, chainer.Variable)
    assert f.W.shape == (2, 3)
    assert f.W.dtype == np.float32
    np.testing.assert_array_equal(f.b.array, np.array([0.0, 0.0], dtype=np.float32))
    f.W.array[...] = [
        [1.0184761, 0.23103087, 0.5650746],
        [1.2937803, 1.0782351, -0.56423163],
    ]
    x = chainer.Variable(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    y = f(x)
    np.testing.assert_allclose(
        y.array, [[3.1757617, 1.7575557], [8.619507, 7.1809077]], rtol=1e-6
    )
    assert y.array.dtype == np.float32

    # 000:398-413, 001:253-271: cleargrads, then parameter gradients.
    f.cleargrads()
    y.grad = np.ones((2, 2), dtype=np.float32)
    y.backward()
    np.testing.assert_array_equal(f.W.grad, [[5.0, 7.0, 9.0], [5.0, 7.0, 9.0]])
    np.testing.assert_array_equal(f.b.grad, [2.0, 2.0])


def test_parameter_gradients_accumulate_until_cleargrads():
    # 000:398-403: "gradients are accumulated by the method rather than
    # overwritten".
    f = Linear(3, 2)
    # Parameters start with NaN gradients: clear them first.
    f.cleargrads()
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    for _ in range(2):
        y = f(x)
        y.grad = np.ones((2, 2), dtype=np.float32)
        y.backward()
    np.testing.assert_array_equal(f.b.grad, [4.0, 4.0])
    f.cleargrads()
    assert f.W.grad is None
    assert f.b.grad is None


def test_linear_with_inferred_input_size():
    # 000:386-397: Linear(2) gets its W at the first minibatch (2 x M).
    f = Linear(2)
    assert f.W.array is None
    y = f(np.ones((2, 5), dtype=np.float32))
    assert f.W.shape == (2, 5)
    assert y.shape == (2, 2)


def test_initializers_used_by_the_examples():
    # 000:894 Normal(scale=1.), 000:3286 Normal(wscale=0.02), 000:3085
    # HeNormal(), 000:4293 Uniform(1. / n_units), 000:923 and 000:4310 a
    # scalar (constant) initializer.
    w = np.empty((300, 400), dtype=np.float32)
    initializers.Normal(0.02)(w)
    assert w.std() == pytest.approx(0.02, rel=0.05)
    initializers.HeNormal()(w)
    assert w.std() == pytest.approx(math.sqrt(2.0 / 400), rel=0.05)
    initializers.Uniform(1.0 / 10)(w)
    assert -0.1 <= w.min() < -0.09
    assert 0.09 < w.max() <= 0.1
    b = chainer.Parameter(0, (3,))
    np.testing.assert_array_equal(b.array, np.zeros(3, dtype=np.float32))
    assert b.dtype == np.float32
    W = chainer.Parameter(initializers.Normal(0.02), (4, 5))
    assert W.shape == (4, 5)
    assert W.dtype == np.float32


def test_linear_function_gradients():
    # 000:902-915 checked numerically.
    x = np.random.randn(4, 3)
    W = np.random.randn(2, 3)
    b = np.random.randn(2)
    chainer.gradient_check.check_backward(linear, (x, W, b), np.random.randn(4, 2))


def test_eltwise_param_product_link():
    # 000:890-896: a Parameter with an initializer and a shape.
    class EltwiseParamProduct(chainer.Link):
        def __init__(self, shape):
            super().__init__()
            with self.init_scope():
                self.W = chainer.Parameter(initializers.Normal(scale=1.0), shape)

        def __call__(self, x):
            return self.W * x

    link = EltwiseParamProduct((2, 3))
    link.cleargrads()
    assert [name for name, _ in link.namedparams()] == ["/W"]
    x = np.random.randn(2, 3).astype(np.float32)
    y = link(x)
    np.testing.assert_allclose(y.array, link.W.array * x)
    y.grad = np.ones((2, 3), dtype=np.float32)
    y.backward()
    np.testing.assert_allclose(link.W.grad, x)


def test_v1_link_with_parameter_shapes():
    # 001:1355-1363: Link(W=shape), then fill W.data. Deprecated form.
    class EltwiseParamProduct(chainer.Link):
        def __init__(self, shape):
            super().__init__(W=shape)
            self.W.data[...] = np.random.randn(*shape)

        def __call__(self, x):
            return self.W * x

    with pytest.warns(DeprecationWarning):
        link = EltwiseParamProduct((2, 3))
    x = np.ones((2, 3), dtype=np.float32)
    np.testing.assert_array_equal(link(x).array, link.W.array)


def test_v1_add_param_registers_nan_filled_parameters():
    # 001:1364-1372 and 001:2051: add_param fills the data with NaN;
    # 003:463-489 registers W and b this way (dot/transpose/broadcast written
    # with operators).
    class FullyConnected(chainer.Link):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.add_param("W", (n_out, n_in))
            self.add_param("b", n_out)

        def __call__(self, x):
            return x @ self.W.T + self.b

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        fc = FullyConnected(3, 2)
    assert fc.W.shape == (2, 3)
    assert fc.b.shape == (2,)
    assert fc.W.dtype == np.float32
    assert np.isnan(fc.W.array).all()
    assert sorted(name for name, _ in fc.namedparams()) == ["/W", "/b"]
    fc.W.array[...] = 1
    fc.b.array[...] = 0.5
    y = fc(chainer.Variable(np.ones((4, 3), dtype=np.float32)))
    np.testing.assert_array_equal(y.array, np.full((4, 2), 3.5, dtype=np.float32))


# ---------------------------------------------------------------------------
# Chains
# ---------------------------------------------------------------------------


class MyChain(chainer.Chain):
    # 000:1330-1339.

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Linear(4, 3)
            self.l2 = Linear(3, 2)

    def forward(self, x):
        h = self.l1(x)
        return self.l2(h)


class MyChain2(chainer.ChainList):
    # 000:1354-1364.

    def __init__(self):
        super().__init__(
            Linear(4, 3),
            Linear(3, 2),
        )

    def forward(self, x):
        h = self[0](x)
        return self[1](h)


def test_chain_registers_child_links_in_init_scope():
    # 000:1330-1347: child links l1, l2; MyChain is callable.
    model = MyChain()
    assert sorted(name for name, _ in model.namedparams()) == [
        "/l1/W",
        "/l1/b",
        "/l2/W",
        "/l2/b",
    ]
    assert sorted(child.name for child in model.children()) == ["l1", "l2"]
    x = np.random.uniform(-1, 1, (5, 4)).astype(np.float32)
    y = model(x)
    expected = model.l2(model.l1(x)).array
    np.testing.assert_allclose(y.array, expected)
    assert y.shape == (5, 2)


def test_deprecated_zerograds_fills_zeros():
    # 001:2151-2156: zerograds() is kept for compatibility, deprecated.
    model = MyChain()
    with pytest.warns(DeprecationWarning):
        model.zerograds()
    for param in model.params():
        np.testing.assert_array_equal(param.grad, np.zeros_like(param.array))


def test_chain_add_link_by_name():
    # 001:2173-2183: add_link(name, link) sets the attribute and the name.
    model = chainer.Chain()
    child = Linear(2, 2)
    model.add_link("fc", child)
    assert model.fc is child
    assert child.name == "fc"
    assert [name for name, _ in model.namedparams()] == ["/fc/W", "/fc/b"]
    with pytest.raises(TypeError):
        model.add_link("not_a_link", np.zeros(2))


def test_chain_ignores_links_assigned_outside_init_scope():
    # 000:2708-2711: components must be assigned inside init_scope().
    model = MyChain()
    model.extra = Linear(2, 2)
    assert "extra" not in [child.name for child in model.children()]
    assert len(list(model.params())) == 4


def test_chain_list_behaves_like_a_list_of_links():
    # 000:1354-1364, 001:2185-2206: indexing, add_link, children order.
    model = MyChain2()
    assert [child.name for child in model.children()] == ["0", "1"]
    assert len(model) == 2
    assert sorted(name for name, _ in model.namedparams()) == [
        "/0/W",
        "/0/b",
        "/1/W",
        "/1/b",
    ]
    model.add_link(Linear(2, 2))
    assert model[2].name == "2"
    x = np.random.uniform(-1, 1, (5, 4)).astype(np.float32)
    assert model(x).shape == (5, 2)


def test_v1_chain_with_keyword_links():
    # 001:296-309, 002:159-175: Chain(l1=..., l2=...) and __call__.
    class OldChain(chainer.Chain):
        def __init__(self):
            super().__init__(
                l1=Linear(4, 3),
                l2=Linear(3, 2),
            )

        def __call__(self, x):
            h = self.l1(x)
            return self.l2(h)

    model = OldChain()
    assert sorted(name for name, _ in model.namedlinks()) == ["/", "/l1", "/l2"]
    assert model.l1.name == "l1"
    assert model(np.ones((1, 4), dtype=np.float32)).shape == (1, 2)


def test_slides_autoencoder_with_child_chains():
    # 003:491-535: MLP and AE(enc, dec) composed of chains.
    class MLP(chainer.Chain):
        def __init__(self, n_in, n_out):
            super().__init__(l1=Linear(n_in, 4), l2=Linear(4, n_out))

        def __call__(self, x):
            h = relu(self.l1(x))
            return self.l2(h)

    class AE(chainer.Chain):
        def __init__(self, enc, dec):
            super().__init__(encoder=enc, decoder=dec)

        def __call__(self, x):
            h = self.encoder(x)
            x_hat = self.decoder(h)
            d = x - x_hat
            return (d * d).mean()

    ae = AE(MLP(6, 2), MLP(2, 6))
    names = sorted(name for name, _ in ae.namedparams())
    assert names[0] == "/decoder/l1/W"
    assert len(names) == 8
    loss = ae(np.random.randn(3, 6).astype(np.float32))
    assert loss.shape == ()
    loss.backward()
    assert all(p.grad is not None for p in ae.params())


def test_named_links_give_hierarchy_paths():
    # 000:2270-2298 (adapted): namedlinks(skipself=True) of Classifier(MLP).
    class MLP(chainer.Chain):
        def __init__(self, n_units, n_out):
            super().__init__()
            with self.init_scope():
                self.l1 = Linear(None, n_units)
                self.l2 = Linear(None, n_units)
                self.l3 = Linear(None, n_out)

    class Classifier(chainer.Chain):
        def __init__(self, predictor):
            super().__init__()
            with self.init_scope():
                self.predictor = predictor

    model = Classifier(MLP(100, 10))
    names = [name for name, _ in model.namedlinks(skipself=True)]
    assert names == ["/predictor", "/predictor/l1", "/predictor/l2", "/predictor/l3"]
    assert next(name for name, _ in model.namedlinks()) == "/"
    assert len(list(model.links(skipself=True))) == 4


def test_sequential_mushrooms_mlp():
    # 000:67-74, 000:80-81: Sequential(L.Linear(n_units), F.relu).repeat(2),
    # then append; layers are 44x22, 44x44 and 1x44 after the first batch.
    def MLP(n_units, n_out):
        layer = chainer.Sequential(Linear(n_units), relu)
        model = layer.repeat(2)
        model.append(Linear(n_out))
        return model

    model = MLP(44, 1)
    y = model(np.random.rand(7, 22).astype(np.float32))
    assert y.shape == (7, 1)
    weights = [p.shape for name, p in sorted(model.namedparams()) if name[-1] == "W"]
    assert weights == [(44, 22), (44, 44), (1, 44)]


def test_params_can_be_reinitialized_in_place():
    # 000:3958-3959: for param in self.params(): param.array[...] = ...
    model = MyChain()
    for param in model.params():
        param.array[...] = np.random.uniform(-0.1, 0.1, param.shape)
    for param in model.params():
        assert np.abs(param.array).max() <= 0.1
    assert model.l1.b.array.any()


def test_link_copy_shares_arrays_with_new_parameter_objects():
    # 001:2095-2099, 000:1855-1864: copy() copies the hierarchy only.
    model = MyChain()
    clone = model.copy()
    assert clone is not model
    assert clone.l1 is not model.l1
    assert clone.l1.W is not model.l1.W
    assert clone.l1.W.array is model.l1.W.array
    assert clone.name is None
    model.l1.W.array[0, 0] = 42.0
    assert clone.l1.W.array[0, 0] == 42.0


def test_link_copyparams_and_addgrads():
    # 000:1891-1910, 001:2082-2104: data-parallel without Trainer, on CPU.
    model_0 = MyChain()
    model_1 = model_0.copy(mode="copy")
    x = np.random.uniform(-1, 1, (4, 4)).astype(np.float32)

    def loss_of(model, xs):
        return model(xs).mean()

    model_0.cleargrads()
    model_1.cleargrads()
    loss_of(model_0, x[:2]).backward()
    loss_of(model_1, x[2:]).backward()
    grad_0 = model_0.l1.W.grad.copy()
    grad_1 = model_1.l1.W.grad.copy()
    model_0.addgrads(model_1)
    np.testing.assert_allclose(model_0.l1.W.grad, grad_0 + grad_1)
    np.testing.assert_allclose(model_1.l1.W.grad, grad_1)

    optimizer = chainer.optimizers.SGD()
    optimizer.setup(model_0)
    optimizer.update()
    assert not np.array_equal(model_1.l1.W.array, model_0.l1.W.array)
    model_1.copyparams(model_0)
    np.testing.assert_array_equal(model_1.l1.W.array, model_0.l1.W.array)
    assert model_1.l1.W.array is not model_0.l1.W.array
    np.testing.assert_allclose(model_1.l1.W.grad, grad_1)


def test_simple_rnn_with_python_branching():
    # 002:232-260: the state starts as None; forward branches on it.
    class SimpleRNN(chainer.Chain):
        def __init__(self, n_in, n_nodes):
            super().__init__(
                x2h=Linear(n_in, n_nodes),
                h2h=Linear(n_nodes, n_nodes),
                h2y=Linear(n_nodes, n_in),
            )
            self.h_internal = None

        def forward_one_step(self, x, h):
            # The explicit branch is the point of the seed snippet.
            if h is None:  # noqa: SIM108
                h = relu(self.x2h(x))
            else:
                h = relu(self.x2h(x) + self.h2h(h))
            y = self.h2y(h)
            return y, h

        def __call__(self, x):
            y, h = self.forward_one_step(x, self.h_internal)
            self.h_internal = h
            return y

    rnn = SimpleRNN(3, 4)
    rnn.cleargrads()
    x = np.random.randn(2, 3).astype(np.float32)
    rnn(x).mean().backward()
    assert rnn.h2h.W.grad is None
    rnn.cleargrads()
    rnn(x).mean().backward()
    assert rnn.h2h.W.grad is not None
    assert rnn.x2h.W.grad is not None


def test_stochastic_depth_changes_the_graph_per_call():
    # 002:314-337: a coin flip per layer and per call decides the path.
    class StochasticResNet(chainer.ChainList):
        def __init__(self, prob, size):
            super().__init__(*[Linear(3, 3) for _ in range(size)])
            self.p = prob
            self.size = size

        def __call__(self, h):
            for i in range(self.size):
                b = np.random.binomial(1, self.p[i])
                c = self[i](h) + h if b == 1 else h
                h = relu(c)
            return h

    model = StochasticResNet([1.0, 0.0, 1.0], 3)
    model.cleargrads()
    x = chainer.Variable(np.random.randn(2, 3).astype(np.float32))
    model(x).mean().backward()
    assert model[0].W.grad is not None
    assert model[1].W.grad is None
    assert model[2].W.grad is not None
