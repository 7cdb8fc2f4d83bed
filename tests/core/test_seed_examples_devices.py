"""The seeds' device, CUDA-facade and utility examples, run as written.

References read ``000:1711`` = line 1711 of the seed file starting with
``000_``. Tests that need a GPU are not here: chainer-core runs without one.
"""

import numpy as np
import pytest

import chainer
from chainer import backend
from chainer.backends import cuda


class Model(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(np.zeros((2, 3), dtype=np.float32))
        self.add_persistent("mean", np.zeros(3, dtype=np.float32))


# ---------------------------------------------------------------------------
# Devices and the CUDA facade (000:1645-1745, 000:3360-3415)
# ---------------------------------------------------------------------------


def test_cuda_module_imports_without_cuda():
    # 000:1658-1660: chainer.backends.cuda imports even without CUDA.
    assert hasattr(cuda, "cupy")
    assert cuda.get_array_module(np.zeros(1)) is np
    assert backend.get_array_module(chainer.Variable(np.zeros(1))) is np


def test_dummy_device_objects_for_numpy_arrays():
    # 000:1711-1733: get_device_from_id(None) and get_device_from_array of a
    # NumPy array give a dummy device usable in with statements.
    def add1(x):
        with cuda.get_device_from_array(x):
            return x + 1

    np.testing.assert_array_equal(add1(np.zeros(2)), [1.0, 1.0])
    with cuda.get_device_from_id(None):
        pass
    assert cuda.get_device_from_id(None) is cuda.DummyDevice


def test_softplus_written_with_get_array_module():
    # 000:1741-1745 (abs restored to -abs: minus signs were stripped).
    def softplus(x):
        xp = backend.get_array_module(x)
        return xp.maximum(0, x) + xp.log1p(xp.exp(-abs(x)))

    x = np.array([-100.0, 0.0, 2.0, 100.0])
    np.testing.assert_allclose(softplus(x), np.logaddexp(0, x), rtol=1e-12)


def test_device_objects_and_to_device():
    # 000:3410-3415 and 000:4709: get_device, to_device, device.send, xp.
    device = chainer.get_device("@numpy")
    assert device.xp is np
    model = Model()
    assert model.to_device(device) is model
    assert model.device == device
    assert model.xp is np
    result = chainer.get_device("@numpy").send(np.arange(3))
    assert isinstance(result, np.ndarray)
    # 000:4644-4654: a negative integer device means NumPy.
    assert chainer.get_device(-1) == device
    with chainer.using_device(device):
        pass


def test_v1_cuda_module_path_and_host_transfers():
    # 001:2929-2945: chainer.cuda is the CUDA utility module; 000:2760
    # to_cpu; 000:2793 accuracy.to_cpu() on a Variable.
    assert chainer.cuda is cuda
    assert cuda.get_device(np.ones(2)) is cuda.DummyDevice
    accuracy = chainer.Variable(np.array(0.5, dtype=np.float32))
    accuracy.to_cpu()
    assert isinstance(accuracy.array, np.ndarray)
    assert float(cuda.to_cpu(accuracy.array)) == 0.5


@pytest.mark.skipif(cuda.available, reason="checks the error raised without CUDA")
def test_to_gpu_without_cuda_is_a_clear_error():
    # 000:1692-1695 (cuda.to_gpu) and check_cuda_available, without CUDA.
    with pytest.raises(RuntimeError):
        cuda.to_gpu(np.ones(2, dtype=np.float32))
    with pytest.raises(RuntimeError):
        cuda.check_cuda_available()


def test_get_device_accepts_an_integer_string_from_the_command_line():
    # 000:3930-3934: --device is a str holding an integer or a specifier.
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--device", "-d", type=str, default="-1")
    args = parser.parse_args([])
    device = chainer.get_device(args.device)
    assert device == chainer.get_device("@numpy")


def test_unknown_device_specifier_is_refused():
    # Bad input for chainer.get_device (000:4709).
    with pytest.raises(ValueError):
        chainer.get_device("@nowhere")


def test_add_noise_adds_a_float64_array_to_a_float32_variable():
    # 000:3386-3396 without the ChainerX branch.
    def add_noise(device, h, sigma=0.2):
        if chainer.config.train:
            xp = device.xp
            randn = xp.random.randn(*h.shape)
            return h + sigma * randn
        return h

    device = chainer.get_device("@numpy")
    h = chainer.Variable(np.ones((2, 3), dtype=np.float32))
    noisy = add_noise(device, h)
    assert noisy.dtype == np.float32
    with chainer.using_config("train", False):
        assert add_noise(device, h) is h


# ---------------------------------------------------------------------------
# Utilities (001:3080-3098, 001:3203-3240)
# ---------------------------------------------------------------------------


def test_experimental_feature_annotation():
    # 001:3215-3225.
    from chainer import utils

    experimental = utils.experimental

    def f(x):
        experimental("chainer.foo.bar.f")
        return x

    with pytest.warns(FutureWarning, match="chainer.foo.bar.f is experimental"):
        f(1)
    try:
        chainer.disable_experimental_feature_warning = True
        f(1)
    finally:
        chainer.disable_experimental_feature_warning = False


def test_walker_alias_samples_by_probability():
    # 001:3080-3098: probabilities are normalized with sum(probs).
    sampler = chainer.utils.WalkerAlias([1.0, 3.0])
    sample = sampler.sample((4000,))
    assert sample.shape == (4000,)
    assert set(np.unique(sample)) <= {0, 1}
    assert (sample == 1).mean() == pytest.approx(0.75, abs=0.03)
