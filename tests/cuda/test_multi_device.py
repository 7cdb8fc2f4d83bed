"""The seeds' GPU chapter on real devices: model and data parallelism.

Each pattern runs on two devices: two GPUs where there are two, and on any
GPU machine one GPU paired with the CPU (and the GPU paired with itself), so
that the cross-device copies and gradient transfers run for real with one
GPU. The results are compared with a single-device run on the CPU.
"""

import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import backend
from chainer import iterators
from chainer import optimizers
from chainer import training

pytestmark = pytest.mark.gpu

PAIRS = [("@cupy:0", "@numpy"), ("@cupy:0", "@cupy:0"), ("@cupy:0", "@cupy:1")]
_CPU = backend.CpuDevice()


def _pair(spec):
    first, second = spec
    if second == "@cupy:1":
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 2:
            pytest.skip("needs 2 GPUs")
    return chainer.get_device(first), chainer.get_device(second)


def _close(actual, expected, rtol=1e-4, atol=1e-5, err_msg=""):
    numpy.testing.assert_allclose(
        _CPU.send(actual), _CPU.send(expected), rtol=rtol, atol=atol, err_msg=err_msg
    )


def _same_params(link, reference):
    pairs = zip(
        sorted(link.namedparams()), sorted(reference.namedparams()), strict=True
    )
    for (name, p), (_, q) in pairs:
        _close(p.array, q.array, err_msg=name)


class MLP(chainer.Chain):
    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


class ParallelMLP(chainer.Chain):
    # The seeds' model-parallel network: two halves on two devices that
    # exchange activations after each MLP (000:1776-1816).
    def __init__(self, dev0, dev1):
        super().__init__()
        with self.init_scope():
            self.mlp1_gpu0 = MLP(8, 6).to_device(dev0)
            self.mlp1_gpu1 = MLP(8, 6).to_device(dev1)
            self.mlp2_gpu0 = MLP(8, 3).to_device(dev0)
            self.mlp2_gpu1 = MLP(8, 3).to_device(dev1)
        self.dev0, self.dev1 = dev0, dev1

    def forward(self, x):
        z0 = self.mlp1_gpu0(x)
        z1 = self.mlp1_gpu1(F.copy(x, self.dev1))
        h0 = F.relu(z0 + F.copy(z1, self.dev0))
        h1 = F.relu(z1 + F.copy(z0, self.dev1))
        y0 = self.mlp2_gpu0(h0)
        y1 = self.mlp2_gpu1(h1)
        return y0 + F.copy(y1, self.dev0)


def _data(n=8):
    rng = numpy.random.RandomState(0)
    x = rng.randn(n, 5).astype(numpy.float32)
    t = rng.randint(0, 3, n).astype(numpy.int32)
    return x, t


@pytest.mark.parametrize("spec", PAIRS)
def test_model_parallel_mlp_matches_one_device(spec):
    dev0, dev1 = _pair(spec)
    x, t = _data()
    reference = ParallelMLP(_CPU, _CPU)
    reference(x)  # initializes the lazy layers
    model = ParallelMLP(dev0, dev1)
    model(dev0.send(x))
    model.copyparams(reference)
    y = model(dev0.send(x))
    assert backend.get_device_from_array(y.array) == dev0
    y_ref = reference(x)
    _close(y.array, y_ref.array)
    F.softmax_cross_entropy(y, dev0.send(t)).backward()
    F.softmax_cross_entropy(y_ref, t).backward()
    for (name, p), (_, q) in zip(
        sorted(model.namedparams()), sorted(reference.namedparams()), strict=True
    ):
        assert backend.get_device_from_array(p.grad) == p.device, name
        _close(p.grad, q.grad, rtol=1e-3, atol=1e-5, err_msg=name)
    half = "mlp1_gpu1/l1/W"
    assert model.mlp1_gpu1.l1.W.device == dev1, half


@pytest.mark.parametrize("spec", PAIRS)
def test_parallel_updater_matches_one_device(spec):
    dev0, dev1 = _pair(spec)
    x, t = _data()
    dataset = list(zip(x, t, strict=True))

    def train(make_updater):
        numpy.random.seed(1)
        model = L.Classifier(MLP(8, 3))
        model.predictor(x[:1])
        opt = optimizers.SGD(lr=0.1)
        opt.setup(model)
        it = iterators.SerialIterator(dataset, 8, shuffle=False)
        updater = make_updater(it, opt)
        for _ in range(3):
            updater.update()
        return model

    one = train(lambda it, opt: training.updaters.StandardUpdater(it, opt))
    two = train(
        lambda it, opt: training.updaters.ParallelUpdater(
            it, opt, devices={"main": dev0, "second": dev1}
        )
    )
    assert two.predictor.l1.W.device == dev0
    _same_params(two, one)


@pytest.mark.parametrize("spec", PAIRS)
def test_manual_data_parallel_addgrads_copyparams(spec):
    # The seeds' loop without Trainer (000:1841-1910): halves of a batch on
    # two model copies, gradients added into the first, parameters copied back.
    dev0, dev1 = _pair(spec)
    x, t = _data()
    numpy.random.seed(2)
    model_0 = L.Classifier(MLP(8, 3))
    model_0.predictor(x[:1])
    reference = model_0.copy(mode="copy")
    model_1 = model_0.copy()
    model_0.to_device(dev0)
    model_1.to_device(dev1)
    opt = optimizers.SGD(lr=0.1)
    opt.setup(model_0)
    ref_opt = optimizers.SGD(lr=0.1)
    ref_opt.setup(reference)
    for _ in range(2):
        loss_0 = model_0(dev0.send(x[:4]), dev0.send(t[:4]))
        loss_1 = model_1(dev1.send(x[4:]), dev1.send(t[4:]))
        model_0.cleargrads()
        model_1.cleargrads()
        loss_0.backward()
        loss_1.backward()
        model_0.addgrads(model_1)
        opt.update()
        model_1.copyparams(model_0)
        # The sum of the two halves' mean losses: twice the full batch mean.
        reference.cleargrads()
        (reference(x[:4], t[:4]) + reference(x[4:], t[4:])).backward()
        ref_opt.update()
    _same_params(model_0, reference)
    _same_params(model_1, reference)
    assert model_1.predictor.l1.W.device == dev1


@pytest.mark.parametrize("spec", PAIRS)
def test_multiprocess_parallel_updater_matches_one_process(spec, monkeypatch):
    # One worker process per further device; parameters and gradients go
    # through shared host memory. The spawned worker finds the CUDA backend
    # through the installed plugins.
    dev0, dev1 = _pair(spec)
    monkeypatch.setenv("CHAINER_DISABLE_PLUGIN_AUTOLOAD", "0")
    x, t = _data(16)
    shards = [list(zip(x[k : k + 8], t[k : k + 8], strict=True)) for k in (0, 8)]

    def make_model():
        numpy.random.seed(3)
        return L.Classifier(L.Linear(5, 3))

    model = make_model().to_device(dev0)
    opt = optimizers.SGD(lr=0.1)
    opt.setup(model)
    updater = training.updaters.MultiprocessParallelUpdater(
        [iterators.SerialIterator(s, 4, shuffle=False) for s in shards],
        opt,
        devices=[dev0, dev1],
    )
    try:
        for _ in range(3):
            updater.update()
    finally:
        updater.finalize()
    reference = make_model()
    ref_opt = optimizers.SGD(lr=0.1)
    ref_opt.setup(reference)
    for step in range(3):
        part = slice(step % 2 * 4, step % 2 * 4 + 4)
        xb = numpy.concatenate([x[:8][part], x[8:][part]])
        tb = numpy.concatenate([t[:8][part], t[8:][part]])
        reference.cleargrads()
        reference(xb, tb).backward()
        ref_opt.update()
    assert model.predictor.W.device == dev0
    _same_params(model, reference)
