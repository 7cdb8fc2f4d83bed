"""chainer.backends.cuda (alias chainer.cuda) when CuPy is not usable.

The facade keeps host-side helpers working on NumPy arrays and makes every
GPU-only entry point raise a RuntimeError that names chainer-cuda.
"""

import importlib.util
import subprocess
import sys

import numpy
import pytest

import chainer
from chainer import backend
from chainer.backends import cuda

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("chainer_cuda") is not None,
    reason="chainer-cuda is installed; these tests cover the facade without it",
)


def test_chainer_cuda_is_the_facade():
    assert chainer.cuda is cuda


def test_not_available():
    assert cuda.available is False
    assert cuda.cudnn_enabled is False
    # As in Chainer 7: a placeholder, not None, that no array module equals.
    assert cuda.cupy is not None
    assert cuda.get_array_module(numpy.ones(1)) is not cuda.cupy
    with pytest.raises(AttributeError, match="chainer-cuda"):
        cuda.cupy.ndarray  # noqa: B018


def test_shares_chainer_config():
    assert cuda.config is chainer.config


def test_gpu_device_is_backend_gpu_device():
    assert cuda.GpuDevice is backend.GpuDevice


# ---------------------------------------------------------------------------
# Host-side helpers
# ---------------------------------------------------------------------------


def test_to_cpu_numpy_array_is_returned_as_is():
    x = numpy.arange(3.0)
    assert cuda.to_cpu(x) is x


def test_to_cpu_none():
    assert cuda.to_cpu(None) is None


def test_to_cpu_list_and_tuple():
    a = numpy.ones(2)
    b = numpy.zeros(3)
    out = cuda.to_cpu([a, None, b])
    assert isinstance(out, list)
    assert out[0] is a
    assert out[1] is None
    assert out[2] is b
    out = cuda.to_cpu((a, b))
    assert isinstance(out, tuple)
    assert out[0] is a


@pytest.mark.parametrize("scalar", [numpy.float32(1.5), 2.0, 3])
def test_to_cpu_scalar_becomes_array(scalar):
    y = cuda.to_cpu(scalar)
    assert isinstance(y, numpy.ndarray)
    assert y.shape == ()
    assert y == scalar


def test_to_cpu_accepts_stream_argument():
    x = numpy.ones(2)
    assert cuda.to_cpu(x, stream=None) is x


@pytest.mark.parametrize("bad", [object(), {"a": 1}])
def test_to_cpu_rejects_non_arrays(bad):
    with pytest.raises(TypeError, match="Actual type"):
        cuda.to_cpu(bad)


def test_get_array_module():
    assert cuda.get_array_module(numpy.ones(2)) is numpy
    assert cuda.get_array_module(chainer.Variable(numpy.ones(2))) is numpy
    assert cuda.get_array_module() is numpy


def test_numpy_arrays_are_not_cuda_arrays():
    assert not isinstance(numpy.ones(2), cuda.ndarray)


def test_get_device_from_array_is_dummy_device():
    assert cuda.get_device_from_array(numpy.ones(2)) is cuda.DummyDevice
    assert cuda.get_device_from_array(numpy.float32(1)) is cuda.DummyDevice
    assert cuda.get_device_from_array() is cuda.DummyDevice
    assert cuda.get_device_from_array(None) is cuda.DummyDevice


def test_get_device_from_array_of_unknown_object():
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        cuda.get_device_from_array([1.0])


def test_get_device_from_id_none():
    assert cuda.get_device_from_id(None) is cuda.DummyDevice


def test_legacy_get_device_on_host_arrays():
    assert cuda.get_device(numpy.ones(2)) is cuda.DummyDevice
    assert cuda.get_device() is cuda.DummyDevice


def test_dummy_device():
    device = cuda.DummyDevice
    assert isinstance(device, cuda.DummyDeviceType)
    assert device.id == -1
    assert device == cuda.DummyDeviceType()
    assert hash(device) == hash(cuda.DummyDeviceType())
    assert device != 0
    with device as entered:
        assert entered is device
    assert device.use() is None
    assert device.synchronize() is None


def test_memoize_passes_calls_through():
    calls = []

    @cuda.memoize()
    def square(x):
        """Squares x."""
        calls.append(x)
        return x * x

    assert square(3) == 9
    assert square(x=4) == 16
    assert calls == [3, 4]
    assert square.__name__ == "square"
    assert square.__doc__ == "Squares x."

    @cuda.memoize(for_each_device=True)
    def double(x):
        return 2 * x

    assert double(5) == 10
    cuda.clear_memo()


def test_fuse_runs_the_function_on_numpy():
    def f(x, y):
        return x * y + 1

    x = numpy.arange(3.0)
    for fused in (cuda.fuse(f), cuda.fuse()(f), cuda.fuse(kernel_name="k")(f)):
        numpy.testing.assert_array_equal(fused(x, x), x * x + 1)


def test_workspace_size_round_trip():
    old = cuda.get_max_workspace_size()
    try:
        cuda.set_max_workspace_size(1024)
        assert cuda.get_max_workspace_size() == 1024
    finally:
        cuda.set_max_workspace_size(old)
    assert cuda.get_max_workspace_size() == old


@pytest.mark.parametrize("level", ["always", "auto", "never", ">=auto", "==always"])
def test_should_use_cudnn_is_false(level):
    assert cuda.should_use_cudnn(level) is False
    assert chainer.should_use_cudnn(level, 5000) is False


def test_should_use_cudnn_bad_level():
    with pytest.raises(ValueError, match="invalid cuDNN level: 'sometimes'"):
        cuda.should_use_cudnn("sometimes")


def test_should_use_cudnn_tensor_core_is_false():
    assert cuda.should_use_cudnn_tensor_core(numpy.float16) is False
    assert chainer.should_use_cudnn_tensor_core(numpy.float16) is False


# ---------------------------------------------------------------------------
# GPU-only entry points
# ---------------------------------------------------------------------------

GPU_ONLY = {
    "check_cuda_available": lambda: cuda.check_cuda_available(),
    "to_gpu": lambda: cuda.to_gpu(numpy.ones(2)),
    "to_gpu-device": lambda: cuda.to_gpu(numpy.ones(2), device=0),
    "copy": lambda: cuda.copy(numpy.ones(2)),
    "get_device_from_id": lambda: cuda.get_device_from_id(0),
    "get_device-int": lambda: cuda.get_device(0),
    "elementwise": lambda: cuda.elementwise("T x", "T y", "y = x", "copy"),
    "reduce": lambda: cuda.reduce("T x", "T y", "x", "a + b", "y = a", "0", "sum"),
    "raw": lambda: cuda.raw("extern C void f() {}", "f"),
    "Device": lambda: cuda.Device(0),
    "Device-default": lambda: cuda.Device(),
    "Stream": lambda: cuda.Stream(),
    "Event": lambda: cuda.Event(),
    "ndarray": lambda: cuda.ndarray(),
    "get_cudnn_dropout_states": lambda: cuda.get_cudnn_dropout_states(),
    "get_cudnn_dropout_states_core": lambda: cuda.get_cudnn_dropout_states_core(0),
    "Variable.to_gpu": lambda: chainer.Variable(numpy.ones(2)).to_gpu(),
}


@pytest.mark.parametrize("name", sorted(GPU_ONLY))
def test_gpu_only_entry_points_name_chainer_cuda(name):
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        GPU_ONLY[name]()


def test_cuda_is_an_attribute_of_chainer_backends_without_an_import():
    code = "import chainer; print(chainer.backends.cuda.available)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() in ("True", "False")
