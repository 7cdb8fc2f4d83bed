"""Models train on a backend whose arrays are not NumPy arrays.

The example plugin's ``'@example'`` backend keeps its data in
``ExampleArray`` objects (``chainer_plugin_example.array``): a type of its own
that refuses implicit conversion to NumPy and mixing with NumPy arrays, as
CuPy's arrays do. These tests move models there and check that parameters,
gradients and optimizer state stay ``ExampleArray`` objects and that the
numbers equal a NumPy run.
"""

import os

import chainer_plugin_example
import numpy
import pytest
from chainer_plugin_example import array as example_array
from chainer_plugin_example import device as example_device

import chainer
from chainer import _backend_contract
from chainer import backend
from chainer import plugins

F = pytest.importorskip("chainer.functions", reason="chainer-links is not installed")
L = pytest.importorskip("chainer.links", reason="chainer-links is not installed")

ExampleArray = example_array.ExampleArray
xp = example_array.xp


@pytest.fixture(autouse=True)
def example():
    name = plugins.register(chainer_plugin_example, name="example")
    yield name
    plugins.unregister(name)


def _host(a):
    return a.get() if isinstance(a, ExampleArray) else a


# --------------------------------------------------------------------------
# The array type and its module
# --------------------------------------------------------------------------


def test_example_arrays_are_not_numpy_arrays():
    a = xp.arange(6, dtype=numpy.float32).reshape(2, 3)
    assert type(a) is ExampleArray
    assert not isinstance(a, numpy.ndarray)
    assert xp.ndarray is ExampleArray
    assert (a.shape, a.dtype, a.ndim, a.size) == ((2, 3), numpy.float32, 2, 6)
    results = [
        a + 1,
        2 * a,
        a @ a.T,
        -a,
        a[0],
        a[:, 1:],
        a.T,
        a.astype(numpy.float64),
        a.sum(),
        a.max(axis=0),
        numpy.exp(a),  # NEP 13
        numpy.concatenate([a, a]),  # NEP 18
        xp.maximum(a, 0),
        xp.zeros_like(a),
        xp.random.normal(size=3, dtype=numpy.float32),
    ]
    for r in results:
        assert type(r) is ExampleArray
    assert a.sum().ndim == 0  # reductions give 0-d arrays, as CuPy's
    assert float(a.sum()) == 15.0
    assert xp.random.normal(size=2, dtype=numpy.float32).dtype == numpy.float32
    numpy.testing.assert_array_equal((a @ a.T).get(), [[5, 14], [14, 50]])


def test_in_place_updates_and_out_keep_the_array():
    a = xp.ones(3, dtype=numpy.float32)
    b = a
    a += 1
    assert a is b
    out = xp.empty_like(a)
    assert xp.multiply(a, a, out=out) is out
    assert a.astype(numpy.float32, copy=False) is a
    a[1] = 7
    xp.add.at(a, numpy.array([0, 0]), 1)
    numpy.testing.assert_array_equal(a.get(), [4, 7, 2])
    numpy.testing.assert_array_equal(out.get(), [4, 4, 4])


def test_no_silent_conversion_to_numpy():
    a = xp.ones(3)
    with pytest.raises(TypeError, match="implicit conversion"):
        numpy.asarray(a)
    with pytest.raises(TypeError, match="cannot be mixed with ExampleArray"):
        a + numpy.ones(3)
    with pytest.raises(TypeError, match="cannot be mixed with ExampleArray"):
        xp.where(numpy.ones(3, bool), a, a)
    host = a.get()
    assert type(host) is numpy.ndarray
    host[0] = 5
    assert float(a[0]) == 1.0  # get() copies
    assert type(a * numpy.float32(2)) is ExampleArray  # scalars are fine


def test_devices_are_tracked_and_not_mixed():
    zero = chainer.get_device("@example:0")
    one = chainer.get_device("@example:1")
    a, b = zero.send(numpy.ones(2)), one.send(numpy.ones(2))
    assert (a.device_index, b.device_index) == (0, 1)
    with pytest.raises(ValueError, match="different devices: @example:0 and"):
        a + b
    with one:
        assert xp.zeros(1).device_index == 1
        with zero:
            assert xp.zeros(1).device_index == 0
        assert xp.zeros(1).device_index == 1
    assert xp.zeros(1).device_index is None
    assert (a + 1).device_index == 0
    moved = one.send(a)
    assert moved.device_index == 1
    assert zero.send(a) is a


# --------------------------------------------------------------------------
# The device
# --------------------------------------------------------------------------


def test_device_follows_the_contract():
    cls = plugins.get_backend("example")
    assert cls is example_device.ExampleDevice
    _backend_contract.check_device_class(cls, "example", "test")
    device = chainer.get_device("@example")
    assert device.xp is xp
    assert device == chainer.get_device("@example")
    assert device != chainer.get_device("@example:0")
    assert len({device, chainer.get_device("@example"), cls(2), cls(2)}) == 2
    assert cls.from_array(numpy.ones(1)) is None
    assert device.is_array_supported(device.send(numpy.ones(1)))
    assert not device.is_array_supported(numpy.ones(1))
    with pytest.raises(TypeError, match="cannot send object to @example"):
        device.send(object())


def test_dispatch_finds_the_backend():
    a = chainer.get_device("@example:3").send(numpy.ones((2, 2), numpy.float32))
    assert backend.get_array_module(a) is xp
    assert backend.get_array_module(chainer.Variable(a)) is xp
    assert backend.get_device_from_array(a) == chainer.get_device("@example:3")
    assert backend.is_array_supported(a)


def test_variable_moves_there_and_back():
    v = chainer.Variable(numpy.arange(3, dtype=numpy.float32))
    v.grad = numpy.ones(3, numpy.float32)
    v.to_device("@example")
    assert str(v.device) == "@example"
    assert type(v.array) is ExampleArray
    assert type(v.grad) is ExampleArray
    v.to_device("@numpy")
    assert str(v.device) == "@numpy"
    assert type(v.array) is numpy.ndarray
    assert type(v.grad) is numpy.ndarray
    numpy.testing.assert_array_equal(v.array, [0, 1, 2])


# --------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------


class _MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 16)
            self.l2 = L.Linear(None, 3)  # initialized on first use, on the device

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def _data():
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal((32, 4)).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32) + (x[:, 1] > 0).astype(numpy.int32)
    return x, t


def _assert_all_on_example(model, optimizer):
    for name, param in model.namedparams():
        assert type(param.array) is ExampleArray, name
        assert param.grad is None or type(param.grad) is ExampleArray, name
        for key, value in param.update_rule.state.items():
            assert type(value) is ExampleArray, (name, key)


def _train_mlp(device, make_optimizer, steps=8):
    numpy.random.seed(1)
    model = _MLP()
    model.to_device(device)
    optimizer = make_optimizer()
    optimizer.setup(model)
    x, t = (chainer.get_device(device).send(a) for a in _data())
    losses = []
    for _ in range(steps):
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        losses.append(float(loss.array))
        if device != "@numpy":
            assert type(loss.array) is ExampleArray
            _assert_all_on_example(model, optimizer)
    return model, losses


@pytest.mark.parametrize(
    "make_optimizer",
    [
        lambda: chainer.optimizers.SGD(lr=0.1),
        lambda: chainer.optimizers.MomentumSGD(lr=0.1),
        lambda: chainer.optimizers.Adam(alpha=0.01),
    ],
    ids=["SGD", "MomentumSGD", "Adam"],
)
def test_mlp_trains_as_on_numpy(make_optimizer):
    _, expected = _train_mlp("@numpy", make_optimizer)
    model, losses = _train_mlp("@example", make_optimizer)
    numpy.testing.assert_allclose(losses, expected, rtol=1e-6)
    assert losses[-1] < losses[0]
    assert str(model.l1.W.device) == "@example"
    model.to_device("@numpy")
    assert type(model.l1.W.array) is numpy.ndarray
    assert type(model.l1.W.grad) is numpy.ndarray


class _ConvNet(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(1, 4, 3, pad=1)
            self.bn = L.BatchNormalization(4)
            self.fc = L.Linear(None, 3)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.bn(self.conv(x))), 2)
        return self.fc(F.dropout(h, 0.25))


def _run_trainer(device, out):
    training = pytest.importorskip("chainer.training")
    from chainer import iterators
    from chainer.training import extensions

    rng = numpy.random.RandomState(2)
    x = rng.standard_normal((24, 1, 6, 6)).astype(numpy.float32)
    t = rng.randint(0, 3, 24).astype(numpy.int32)
    dataset = chainer.datasets.TupleDataset(x, t)
    numpy.random.seed(3)
    model = L.Classifier(_ConvNet())
    model.to_device(device)
    # Not Adam here: the convolution's bias feeds batch normalization, so its
    # true gradient is 0 and what is computed is float32 rounding noise,
    # which differs between NumPy's fast paths and the generic ones; Adam
    # turns noise into full-size steps (the MLP tests cover Adam).
    optimizer = chainer.optimizers.MomentumSGD(lr=0.05)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(1e-4))
    updater = training.updaters.StandardUpdater(
        iterators.SerialIterator(dataset, 8, shuffle=False), optimizer, device=device
    )
    trainer = training.Trainer(updater, (2, "epoch"), out=out)
    test_iter = iterators.SerialIterator(dataset, 8, repeat=False, shuffle=False)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    log = extensions.LogReport()
    trainer.extend(log)
    trainer.extend(extensions.snapshot(), trigger=(2, "epoch"))
    trainer.run()
    keys = ("main/loss", "main/accuracy", "validation/main/loss")
    return model, optimizer, [[entry[k] for k in keys] for entry in log.log]


def test_trainer_runs_on_the_backend(tmp_path):
    _, _, expected = _run_trainer("@numpy", str(tmp_path / "numpy"))
    model, optimizer, logged = _run_trainer("@example", str(tmp_path / "example"))
    numpy.testing.assert_allclose(logged, expected, rtol=1e-5)
    _assert_all_on_example(model, optimizer)
    assert type(model.predictor.bn.avg_mean) is ExampleArray
    # The snapshot was written from device arrays and loads into a NumPy model.
    snapshot = os.path.join(str(tmp_path / "example"), "snapshot_iter_6")
    restored = L.Classifier(_ConvNet())
    restored.predictor(numpy.zeros((1, 1, 6, 6), numpy.float32))
    chainer.serializers.load_npz(snapshot, restored, path="updater/model:main/")
    numpy.testing.assert_array_equal(
        restored.predictor.fc.W.array, model.predictor.fc.W.array.get()
    )
    # ...and into a model that lives on the example device.
    restored.to_device("@example")
    chainer.serializers.load_npz(snapshot, restored, path="updater/model:main/")
    assert type(restored.predictor.conv.W.array) is ExampleArray


# --------------------------------------------------------------------------
# The catalogue, function by function
# --------------------------------------------------------------------------

_rng = numpy.random.RandomState(4)


def _f(*shape):
    return _rng.uniform(-1, 1, shape).astype(numpy.float32)


_X2, _X4 = _f(3, 4), _f(2, 3, 4, 4)
_LABELS = numpy.array([0, 2, 1], numpy.int32)
_MASK = numpy.array([[True, False, True, False]] * 3)
_POS = _f(3, 4) ** 2 + 0.5

# name -> (function of (send, *variables), input arrays); ``send`` moves a
# constant to the device under test.
_CASES = {
    "relu": (lambda s, x: F.relu(x), [_X2]),
    "leaky_relu": (lambda s, x: F.leaky_relu(x), [_X2]),
    "elu": (lambda s, x: F.elu(x), [_X2]),
    "sigmoid": (lambda s, x: F.sigmoid(x), [_X2]),
    "tanh": (lambda s, x: F.tanh(x), [_X2]),
    "softplus": (lambda s, x: F.softplus(x), [_X2]),
    "softmax": (lambda s, x: F.softmax(x), [_X2]),
    "log_softmax": (lambda s, x: F.log_softmax(x), [_X2]),
    "maxout": (lambda s, x: F.maxout(x, 2), [_X2]),
    "prelu": (lambda s, x, w: F.prelu(x, w), [_X2, _f(4)]),
    "linear": (lambda s, x, w, b: F.linear(x, w, b), [_X2, _f(5, 4), _f(5)]),
    "convolution_2d": (
        lambda s, x, w, b: F.convolution_2d(x, w, b, pad=1),
        [_X4, _f(2, 3, 3, 3), _f(2)],
    ),
    "deconvolution_2d": (
        lambda s, x, w: F.deconvolution_2d(x, w),
        [_X4, _f(3, 2, 3, 3)],
    ),
    "depthwise_convolution_2d": (
        lambda s, x, w: F.depthwise_convolution_2d(x, w),
        [_X4, _f(1, 3, 3, 3)],
    ),
    "convolution_nd": (
        lambda s, x, w: F.convolution_nd(x, w),
        [_f(2, 3, 4, 4, 4), _f(2, 3, 2, 2, 2)],
    ),
    "max_pooling_2d": (lambda s, x: F.max_pooling_2d(x, 2), [_X4]),
    "average_pooling_2d": (lambda s, x: F.average_pooling_2d(x, 2), [_X4]),
    "unpooling_2d": (lambda s, x: F.unpooling_2d(x, 2, outsize=(8, 8)), [_X4]),
    "local_response_normalization": (
        lambda s, x: F.local_response_normalization(x),
        [_X4],
    ),
    "batch_normalization": (
        lambda s, x, g, b: F.batch_normalization(x, g, b),
        [_X4, _f(3), _f(3)],
    ),
    "layer_normalization": (
        lambda s, x, g, b: F.layer_normalization(x, g, b),
        [_X2, _f(4), _f(4)],
    ),
    "normalize": (lambda s, x: F.normalize(x), [_X2]),
    "softmax_cross_entropy": (
        lambda s, x: F.softmax_cross_entropy(x, s(_LABELS)),
        [_X2],
    ),
    "sigmoid_cross_entropy": (
        lambda s, x: F.sigmoid_cross_entropy(x, s(_MASK.astype(numpy.int32))),
        [_X2],
    ),
    "mean_squared_error": (lambda s, a, b: F.mean_squared_error(a, b), [_X2, _f(3, 4)]),
    "huber_loss": (lambda s, a, b: F.huber_loss(a, b, 1.0), [_X2, _f(3, 4)]),
    "gaussian_kl_divergence": (
        lambda s, m, v: F.gaussian_kl_divergence(m, v),
        [_X2, _f(3, 4)],
    ),
    "connectionist_temporal_classification": (
        lambda s, *xs: F.connectionist_temporal_classification(
            list(xs), s(numpy.array([[1, 2]], numpy.int32)), 0
        ),
        [_f(1, 3) for _ in range(4)],
    ),
    "accuracy": (lambda s, x: F.accuracy(x, s(_LABELS)), [_X2]),
    "reshape": (lambda s, x: F.reshape(x, (4, 3)), [_X2]),
    "transpose": (lambda s, x: F.transpose(x), [_X2]),
    "concat": (lambda s, a, b: F.concat((a, b)), [_X2, _f(3, 4)]),
    "stack": (lambda s, a, b: F.stack((a, b)), [_X2, _f(3, 4)]),
    "split_axis": (lambda s, x: F.split_axis(x, 2, 1)[1], [_X2]),
    "get_item": (lambda s, x: x[1:, ::2], [_X2]),
    "get_item_advanced": (lambda s, x: F.get_item(x, numpy.array([0, 2, 0])), [_X2]),
    "broadcast_to": (lambda s, x: F.broadcast_to(x, (2, 3, 4)), [_X2]),
    "tile": (lambda s, x: F.tile(x, 2), [_X2]),
    "pad": (lambda s, x: F.pad(x, 1, "constant"), [_X2]),
    "where": (lambda s, a, b: F.where(s(_MASK), a, b), [_X2, _f(3, 4)]),
    "select_item": (lambda s, x: F.select_item(x, s(_LABELS)), [_X2]),
    "resize_images": (lambda s, x: F.resize_images(x, (6, 6)), [_X4]),
    "spatial_transformer_sampler": (
        lambda s, x, g: F.spatial_transformer_sampler(x, g),
        [_X4, _f(2, 2, 4, 4)],
    ),
    "sum": (lambda s, x: F.sum(x, 1), [_X2]),
    "max": (lambda s, x: F.max(x, 1), [_X2]),
    "cumsum": (lambda s, x: F.cumsum(x, 1), [_X2]),
    "logsumexp": (lambda s, x: F.logsumexp(x), [_X2]),
    "exp": (lambda s, x: F.exp(x), [_X2]),
    "log": (lambda s, x: F.log(x), [_POS]),
    "sqrt": (lambda s, x: F.sqrt(x), [_POS]),
    "matmul": (lambda s, a, b: F.matmul(a, b), [_f(2, 3, 4), _f(2, 4, 2)]),
    "einsum": (lambda s, a, b: F.einsum("ij,jk->ik", a, b), [_X2, _f(4, 2)]),
    "batch_inv": (
        lambda s, x: F.batch_inv(x),
        [_f(2, 3, 3) + 3 * numpy.eye(3, dtype=numpy.float32)],
    ),
    "clip": (lambda s, x: F.clip(x, -0.5, 0.5), [_X2]),
    "erf": (lambda s, x: F.erf(x), [_X2]),
    "lgamma": (lambda s, x: F.lgamma(x), [_POS]),
    "maximum": (lambda s, a, b: F.maximum(a, b), [_X2, _f(3, 4)]),
    "embed_id": (
        lambda s, w: F.embed_id(s(numpy.array([0, 2], numpy.int32)), w),
        [_X2],
    ),
    "lstm": (lambda s, c, x: F.lstm(c, x)[1], [_f(3, 2), _f(3, 8)]),
}


@pytest.mark.parametrize("name", sorted(_CASES))
def test_function_matches_numpy(name):
    fn, inputs = _CASES[name]

    def run(device):
        xs = [chainer.Variable(device.send(a.copy())) for a in inputs]
        y = fn(device.send, *xs)
        if y.dtype.kind == "f":
            gy = numpy.linspace(-1, 1, y.size, dtype=y.dtype).reshape(y.shape)
            y.grad = device.send(gy)
            y.backward()
        return y, xs

    expected, expected_xs = run(chainer.get_device("@numpy"))
    y, xs = run(chainer.get_device("@example"))
    assert type(y.array) is ExampleArray
    numpy.testing.assert_allclose(y.array.get(), expected.array, rtol=1e-5, atol=1e-6)
    for x, ex in zip(xs, expected_xs, strict=True):
        if ex.grad is None:
            continue
        assert type(x.grad) is ExampleArray
        numpy.testing.assert_allclose(x.grad.get(), ex.grad, rtol=1e-5, atol=1e-6)
