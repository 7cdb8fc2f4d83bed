"""chainer-cuda on a real CUDA device: devices, links, optimizers, training.

Every test here is marked ``gpu``; the root conftest skips them, with the
reason, when CuPy or a CUDA device is missing. Run them with
``python -m pytest -m gpu tests/cuda``.
"""

import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import backend
from chainer import iterators
from chainer import optimizers
from chainer import plugins
from chainer import serializers
from chainer import training
from chainer.backends import cuda

pytestmark = pytest.mark.gpu


def _assert_close(actual, expected, rtol=1e-5, atol=1e-6):
    numpy.testing.assert_allclose(
        cuda.to_cpu(actual), cuda.to_cpu(expected), rtol=rtol, atol=atol
    )


def test_facade_is_cupy(gpu):
    assert cuda.available is True
    assert cuda.cupy is gpu
    assert cuda.ndarray is gpu.ndarray
    assert cuda.Device is gpu.cuda.Device
    assert cuda.GpuDevice is backend.GpuDevice
    assert chainer.cuda is cuda


@pytest.mark.parametrize("spec", ["@cupy:0", 0, "0", "@cupy"])
def test_device_specs(gpu, spec):
    dev = chainer.get_device(spec)
    assert isinstance(dev, backend.GpuDevice)
    assert dev.xp is gpu
    assert dev.name == "@cupy:0"
    assert str(dev) == "@cupy:0"
    assert repr(dev) == "<GpuDevice (cupy):0>"
    assert dev == chainer.get_device("@cupy:0")
    assert hash(dev) == hash(chainer.get_device(0))
    assert dev != backend.CpuDevice()
    assert backend.GpuDevice(0) == dev
    assert backend.GpuDevice.from_device_id(0) == dev
    assert chainer.get_device(gpu.cuda.Device(0)) == dev
    assert chainer.get_device((gpu, 0)) == dev


def test_missing_device_id(gpu):
    count = gpu.cuda.runtime.getDeviceCount()
    with pytest.raises(ValueError, match="does not exist"):
        chainer.get_device(f"@cupy:{count}")


def test_round_trip_numpy_cupy(gpu):
    x = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    dev = chainer.get_device("@cupy:0")
    y = dev.send(x)
    assert isinstance(y, gpu.ndarray)
    assert y.device.id == 0
    assert dev.send(y) is y
    back = backend.CpuDevice().send(y)
    assert isinstance(back, numpy.ndarray)
    numpy.testing.assert_array_equal(back, x)
    # Non-contiguous arrays, scalars and nested structures.
    numpy.testing.assert_array_equal(cuda.to_cpu(dev.send(x.T)), x.T)
    s = dev.send(numpy.float32(2.5))
    assert isinstance(s, gpu.ndarray)
    assert s.shape == ()
    assert float(s) == 2.5
    pair = dev.send((x, [x, None], {"a": x}))
    assert isinstance(pair[1][0], gpu.ndarray)
    assert pair[1][1] is None
    assert isinstance(pair[2]["a"], gpu.ndarray)
    assert backend.get_device_from_array(y) == dev
    assert backend.get_array_module(y) is gpu
    assert backend.get_array_module(chainer.Variable(y)) is gpu
    assert backend.is_array_supported(y)
    assert dev.is_array_supported(y)
    assert not dev.is_array_supported(x)


def test_legacy_helpers(gpu):
    x = numpy.arange(6, dtype=numpy.float32)
    y = cuda.to_gpu(x)
    assert isinstance(y, gpu.ndarray)
    assert cuda.to_gpu(y) is y
    assert isinstance(cuda.to_gpu(x, device=0), gpu.ndarray)
    assert isinstance(cuda.to_gpu(x, device=gpu.cuda.Device(0)), gpu.ndarray)
    assert cuda.to_gpu(None) is None
    assert isinstance(cuda.to_gpu([x, x]), list)
    assert isinstance(cuda.to_gpu(numpy.float32(1)), gpu.ndarray)
    with pytest.raises(TypeError):
        cuda.to_gpu("abc")
    numpy.testing.assert_array_equal(cuda.to_cpu(y), x)
    assert cuda.to_cpu(x) is x
    assert isinstance(cuda.to_cpu((y, y)), tuple)
    c = cuda.copy(y)
    assert c is not y
    _assert_close(c, y)
    out = gpu.empty_like(y)
    assert cuda.copy(y, out=out) is out
    _assert_close(out, y)
    assert cuda.get_device_from_id(0) == gpu.cuda.Device(0)
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    assert cuda.get_device_from_array(y) == gpu.cuda.Device(0)
    assert cuda.get_device_from_array(x) is cuda.DummyDevice
    assert cuda.get_device(y) == gpu.cuda.Device(0)
    assert cuda.get_device(0) == gpu.cuda.Device(0)
    assert cuda.get_device(x) is cuda.DummyDevice
    assert cuda.get_array_module(y) is gpu
    assert cuda.get_array_module(x) is numpy
    with cuda.get_device_from_id(0):
        z = gpu.ones(3)
    assert z.device.id == 0
    cuda.check_cuda_available()


def test_using_device_and_context(gpu):
    with chainer.using_device("@cupy:0") as dev:
        assert gpu.cuda.runtime.getDevice() == 0
        assert dev.name == "@cupy:0"
    with chainer.get_device("@cupy:0"):
        assert gpu.cuda.Device().id == 0
    assert plugins.get_backend("cupy").current() == chainer.get_device(0)


def test_memoize_and_fuse(gpu):
    calls = []

    @cuda.memoize(for_each_device=True)
    def make(n):
        calls.append(n)
        return gpu.arange(n)

    make(3)
    make(3)
    assert calls == [3]
    cuda.clear_memo()
    make(3)
    assert calls == [3, 3]

    @cuda.fuse()
    def axpy(a, x, y):
        return a * x + y

    x = gpu.arange(4, dtype=gpu.float32)
    _assert_close(axpy(2.0, x, x), 3 * x)


def test_seed_elementwise_kernel(gpu):
    # The MulAdd kernels of Chainer's "Write an elementwise kernel" guide.
    x, y, z = (
        cuda.to_gpu(numpy.random.rand(3, 4).astype(numpy.float32)) for _ in range(3)
    )
    w = cuda.elementwise(
        "float32 x, float32 y, float32 z", "float32 w", "w = x * y + z", "muladd_fwd"
    )(x, y, z)
    _assert_close(w, x * y + z)
    kernel = cuda.elementwise(
        "T x, T y, T gw", "T gx, T gy", "gx = y * gw; gy = x * gw;", "muladd_bwd"
    )
    assert kernel is cuda.elementwise(
        "T x, T y, T gw", "T gx, T gy", "gx = y * gw; gy = x * gw;", "muladd_bwd"
    )
    gw = gpu.ones_like(x)
    gx, gy = kernel(x, y, gw)
    _assert_close(gx, y)
    _assert_close(gy, x)
    total = cuda.reduce("T x", "T y", "x", "a + b", "y = a", "0", "my_sum")(x)
    _assert_close(total, x.sum(), rtol=1e-5)


def test_cupy_memory_profile_hook_counts_pool_bytes(gpu):
    from chainer import function_hooks

    pool = gpu.get_default_memory_pool()
    x = chainer.Variable(gpu.ones((256, 1024), gpu.float32))  # 1 MiB
    pool.free_all_blocks()
    with function_hooks.CupyMemoryProfileHook() as hook:
        y = F.relu(x)
    name, used, acquired, depth = hook.call_history[0]
    assert (name, depth) == ("ReLU", 0)
    # The output alone takes 1 MiB of the pool; nothing was cached, so the
    # pool had to acquire at least that much from the device.
    assert used >= y.array.nbytes
    assert acquired >= y.array.nbytes
    assert hook.total_used_bytes() == used
    summary = hook.summary()
    assert summary["ReLU"]["occurrence"] == 1


class _MulAdd(chainer.FunctionNode):
    def forward_cpu(self, inputs):
        self.retain_inputs((0, 1))
        x, y, z = inputs
        return (x * y + z,)

    def forward_gpu(self, inputs):
        self.retain_inputs((0, 1))
        x, y, z = inputs
        w = cuda.elementwise("T x, T y, T z", "T w", "w = x * y + z", "muladd_fwd")(
            x, y, z
        )
        return (w,)

    def backward(self, indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        (gw,) = grad_outputs
        return gw * y, gw * x, gw


def test_user_function_with_forward_gpu(gpu):
    xs = [numpy.random.rand(2, 3).astype(numpy.float32) for _ in range(3)]
    cpu = [chainer.Variable(x) for x in xs]
    dev = [chainer.Variable(cuda.to_gpu(x)) for x in xs]
    (w_cpu,) = _MulAdd().apply(cpu)
    (w_gpu,) = _MulAdd().apply(dev)
    assert isinstance(w_gpu.array, gpu.ndarray)
    _assert_close(w_gpu.array, w_cpu.array)
    F.sum(w_gpu).backward()
    F.sum(w_cpu).backward()
    for a, b in zip(dev, cpu, strict=True):
        _assert_close(a.grad, b.grad)


class _MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 8)
            self.l2 = L.Linear(8, 3)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def _pair():
    cpu = _MLP()
    gpu_model = _MLP()
    gpu_model.copyparams(cpu)
    return cpu, gpu_model


def _data():
    x = numpy.random.rand(5, 4).astype(numpy.float32)
    t = numpy.random.randint(0, 3, size=5).astype(numpy.int32)
    return x, t


@pytest.mark.parametrize("how", ["to_device", "to_gpu", "to_gpu0"])
def test_link_forward_backward_matches_cpu(gpu, how):
    cpu, model = _pair()
    if how == "to_device":
        model.to_device("@cupy:0")
    elif how == "to_gpu":
        model.to_gpu()
    else:
        model.to_gpu(0)
    assert model.device == chainer.get_device("@cupy:0")
    assert isinstance(model.l1.W.array, gpu.ndarray)
    x, t = _data()
    loss_cpu = F.softmax_cross_entropy(cpu(x), t)
    loss_gpu = F.softmax_cross_entropy(model(cuda.to_gpu(x)), cuda.to_gpu(t))
    assert isinstance(loss_gpu.array, gpu.ndarray)
    _assert_close(loss_gpu.array, loss_cpu.array, rtol=1e-5)
    loss_cpu.backward()
    loss_gpu.backward()
    for (name, p_cpu), (_, p_gpu) in zip(
        sorted(cpu.namedparams()), sorted(model.namedparams()), strict=True
    ):
        assert isinstance(p_gpu.grad, gpu.ndarray), name
        _assert_close(p_gpu.grad, p_cpu.grad, rtol=1e-4, atol=1e-6)
    model.to_cpu()
    assert isinstance(model.l1.W.array, numpy.ndarray)


@pytest.mark.parametrize(
    "make", [lambda: optimizers.SGD(lr=0.1), lambda: optimizers.Adam()]
)
def test_optimizer_step_matches_cpu(gpu, make):
    cpu, model = _pair()
    model.to_device("@cupy:0")
    opt_cpu, opt_gpu = make(), make()
    opt_cpu.setup(cpu)
    opt_gpu.setup(model)
    x, t = _data()
    for _ in range(3):
        opt_cpu.update(lambda: F.softmax_cross_entropy(cpu(x), t))
        opt_gpu.update(
            lambda: F.softmax_cross_entropy(model(cuda.to_gpu(x)), cuda.to_gpu(t))
        )
    for (_, p_cpu), (_, p_gpu) in zip(
        sorted(cpu.namedparams()), sorted(model.namedparams()), strict=True
    ):
        assert isinstance(p_gpu.array, gpu.ndarray)
        _assert_close(p_gpu.array, p_cpu.array, rtol=1e-4, atol=1e-5)


def test_variable_to_device_and_copy(gpu):
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    v = chainer.Variable(x.copy())
    v.grad = numpy.ones_like(x)
    v.to_device("@cupy:0")
    assert isinstance(v.array, gpu.ndarray)
    assert isinstance(v.grad, gpu.ndarray)
    assert v.device == chainer.get_device(0)
    v.to_device("@numpy")
    assert isinstance(v.array, numpy.ndarray)
    # F.copy across devices, gradient flowing back to the source device.
    h = chainer.Variable(x)
    d = F.copy(h, "@cupy:0")
    assert isinstance(d.array, gpu.ndarray)
    F.sum(d * d).backward()
    assert isinstance(h.grad, numpy.ndarray)
    numpy.testing.assert_allclose(h.grad, 2 * x)
    g = chainer.Variable(cuda.to_gpu(x))
    back = F.copy(g, -1)
    assert isinstance(back.array, numpy.ndarray)
    F.sum(back).backward()
    assert isinstance(g.grad, gpu.ndarray)
    assert isinstance(F.copy(g, 0).array, gpu.ndarray)


def test_save_and_load_npz_of_gpu_model(gpu, tmp_path):
    cpu, model = _pair()
    model.to_device("@cupy:0")
    path = tmp_path / "model.npz"
    serializers.save_npz(path, model)
    loaded = _MLP()
    serializers.load_npz(path, loaded)
    _assert_close(loaded.l1.W.array, cpu.l1.W.array)
    onto_gpu = _MLP().to_device("@cupy:0")
    serializers.load_npz(path, onto_gpu)
    assert isinstance(onto_gpu.l1.W.array, gpu.ndarray)
    _assert_close(onto_gpu.l2.b.array, cpu.l2.b.array)


def test_standard_updater_on_gpu(gpu):
    x, t = _data()
    dataset = list(zip(x, t, strict=True))
    model = L.Classifier(_MLP())
    opt = optimizers.SGD(lr=0.1)
    opt.setup(model)
    it = iterators.SerialIterator(dataset, 2)
    updater = training.updaters.StandardUpdater(it, opt, device="@cupy:0")
    assert isinstance(model.predictor.l1.W.array, gpu.ndarray)
    before = cuda.to_cpu(model.predictor.l1.W.array).copy()
    for _ in range(3):
        updater.update()
    assert updater.iteration == 3
    assert isinstance(model.predictor.l1.W.array, gpu.ndarray)
    assert not numpy.allclose(cuda.to_cpu(model.predictor.l1.W.array), before)


def _check_function(gpu, func, inputs, rtol=1e-4, atol=1e-5):
    cpu_vars = [chainer.Variable(a) for a in inputs]
    gpu_vars = [chainer.Variable(cuda.to_gpu(a)) for a in inputs]
    y_cpu = func(*cpu_vars)
    y_gpu = func(*gpu_vars)
    assert isinstance(y_gpu.array, gpu.ndarray)
    _assert_close(y_gpu.array, y_cpu.array, rtol=rtol, atol=atol)
    gy = numpy.random.rand(*y_cpu.shape).astype(y_cpu.dtype)
    y_cpu.grad = gy
    y_gpu.grad = cuda.to_gpu(gy)
    y_cpu.backward()
    y_gpu.backward()
    for v_cpu, v_gpu in zip(cpu_vars, gpu_vars, strict=True):
        assert isinstance(v_gpu.grad, gpu.ndarray)
        _assert_close(v_gpu.grad, v_cpu.grad, rtol=rtol, atol=atol)


def _rand(*shape):
    return (numpy.random.rand(*shape) - 0.5).astype(numpy.float32)


@pytest.mark.parametrize(
    ("func", "shapes"),
    [
        (F.relu, [(3, 4)]),
        (lambda x: F.sum(x, axis=1), [(3, 4)]),
        (F.linear, [(3, 4), (5, 4), (5,)]),
        (lambda x, W: F.convolution_2d(x, W, pad=1), [(2, 3, 5, 5), (4, 3, 3, 3)]),
        (lambda x: F.max_pooling_2d(x, 2), [(2, 3, 4, 4)]),
        (F.batch_normalization, [(4, 3, 2, 2), (3,), (3,)]),
    ],
    ids=["relu", "sum", "linear", "convolution_2d", "max_pooling_2d", "batch_norm"],
)
def test_catalogue_functions_match_numpy(gpu, func, shapes):
    _check_function(gpu, func, [_rand(*s) for s in shapes])
