"""chainer.backend: device specifiers, transfers and array-module dispatch."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

import chainer
from chainer import backend

_HAS_CHAINER_CUDA = importlib.util.find_spec("chainer_cuda") is not None


# ---------------------------------------------------------------------------
# get_device
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    ["@numpy", -1, -5, numpy.int64(-1), numpy, (numpy,)],
    ids=["string", "minus-one", "negative", "numpy-int", "module", "tuple"],
)
def test_get_device_cpu_specifiers(spec):
    device = backend.get_device(spec)
    assert isinstance(device, backend.CpuDevice)
    assert device.xp is numpy
    assert device.name == "@numpy"
    assert str(device) == "@numpy"
    assert device == backend.CpuDevice()


def test_get_device_returns_device_instance_unchanged():
    device = backend.CpuDevice()
    assert backend.get_device(device) is device


def test_chainer_get_device_is_backend_get_device():
    assert chainer.get_device is backend.get_device
    assert chainer.using_device is backend.using_device


def test_cpu_devices_compare_and_hash_equal():
    a = backend.CpuDevice()
    b = backend.get_device("@numpy")
    assert a == b
    assert (a != b) is False
    assert hash(a) == hash(b)
    assert len({a, b}) == 1
    assert a != "@numpy"


@pytest.mark.parametrize(
    ("spec", "pattern"),
    [
        ("@numpy:1", r"invalid device specifier '@numpy:1'"),
        ("@intel64:0", r"invalid device specifier '@intel64:0'"),
        ("@cupy:x", r"device id must be an integer"),
        ("@cupy:-1", r"negative id"),
        ("@nosuchbackend", r"unknown device backend '@nosuchbackend'"),
    ],
)
def test_get_device_bad_specifiers(spec, pattern):
    with pytest.raises(ValueError, match=pattern):
        backend.get_device(spec)


@pytest.mark.parametrize(
    ("spec", "pattern"),
    [
        (3.5, r"invalid device specifier: 3\.5"),
        (None, r"invalid device specifier: None"),
        ((numpy, 0), r"invalid device specifier"),
        ((), r"invalid device specifier"),
    ],
)
def test_get_device_bad_specifier_types(spec, pattern):
    # Chainer 7 raises TypeError for objects of no specifier type.
    with pytest.raises(TypeError, match=pattern):
        backend.get_device(spec)


@pytest.mark.parametrize("spec", ["native", "native:0", "cuda:0", "numpy", "cupy", ""])
def test_get_device_chainerx_specifiers_name_chainerx(spec):
    # Chainer 7 reads strings without '@' as ChainerX devices; without
    # ChainerX that is a RuntimeError that says so.
    with pytest.raises(RuntimeError, match="ChainerX is not available"):
        backend.get_device(spec)


def test_get_device_rejects_bool():
    with pytest.raises(TypeError, match="invalid device specifier: True"):
        backend.get_device(True)


@pytest.mark.skipif(_HAS_CHAINER_CUDA, reason="chainer-cuda is installed")
@pytest.mark.parametrize("spec", ["@cupy:0", "@cupy:1", 0, 2])
def test_get_device_cupy_without_chainer_cuda(spec):
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        backend.get_device(spec)


@pytest.mark.skipif(_HAS_CHAINER_CUDA, reason="chainer-cuda is installed")
def test_gpu_device_without_chainer_cuda():
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        backend.GpuDevice(0)
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        backend.GpuDevice.from_device_id(0)


def test_unsupported_devices_raise():
    with pytest.raises(RuntimeError, match="iDeep is not available"):
        backend.Intel64Device()
    with pytest.raises(RuntimeError, match="ChainerX is not available"):
        backend.ChainerxDevice(None)


def test_get_device_intel64_string():
    with pytest.raises(RuntimeError, match="iDeep"):
        backend.get_device("@intel64")


# ---------------------------------------------------------------------------
# Device.send
# ---------------------------------------------------------------------------


def test_send_keeps_numpy_arrays_as_they_are():
    device = backend.CpuDevice()
    x = numpy.arange(3.0)
    assert device.send(x) is x
    assert device.send_array(x) is x


def test_send_numpy_scalar_becomes_zero_dim_array():
    y = backend.CpuDevice().send(numpy.float32(2.5))
    assert isinstance(y, numpy.ndarray)
    assert y.shape == ()
    assert y.dtype == numpy.float32
    assert float(y) == 2.5


def test_send_nested_structures():
    a = numpy.ones(2)
    b = numpy.zeros((1, 3), numpy.float32)
    c = numpy.float64(4.0)
    data = {"x": [a, None, (b, c)], "y": (a,), "z": None}
    sent = backend.CpuDevice().send(data)
    assert isinstance(sent, dict)
    assert set(sent) == {"x", "y", "z"}
    assert isinstance(sent["x"], list)
    assert isinstance(sent["x"][2], tuple)
    assert isinstance(sent["y"], tuple)
    assert sent["x"][0] is a
    assert sent["x"][1] is None
    assert sent["x"][2][0] is b
    assert isinstance(sent["x"][2][1], numpy.ndarray)
    assert sent["y"][0] is a
    assert sent["z"] is None


def test_send_none():
    assert backend.CpuDevice().send(None) is None


def test_send_array_like_with_get_method(monkeypatch):
    # Arrays of a registered backend (CuPy and friends) are copied to the host
    # through ``get()``.
    class _DeviceArray:
        def get(self):
            return numpy.array([1.0, 2.0])

    class _FakeDevice(backend.Device):
        xp = numpy
        supported_array_types = (_DeviceArray,)
        name = "@fake"

    monkeypatch.setitem(backend._device_class_by_type, _DeviceArray, _FakeDevice)
    y = backend.CpuDevice().send(_DeviceArray())
    numpy.testing.assert_array_equal(y, [1.0, 2.0])


def test_send_rejects_non_array_objects():
    with pytest.raises(TypeError):
        backend.CpuDevice().send(object())


def test_variable_to_device_uses_spec():
    v = chainer.Variable(numpy.ones(2, numpy.float32))
    v.to_device("@numpy")
    assert isinstance(v.array, numpy.ndarray)
    assert v.device == backend.CpuDevice()


# ---------------------------------------------------------------------------
# get_array_module and get_device_from_array
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        (numpy.ones(2),),
        (chainer.Variable(numpy.ones(2)),),
        (chainer.Variable(),),
        (numpy.float32(1),),
        (1.0,),
        (3,),
        (None,),
        ([1, 2],),
        (),
        (numpy.ones(2), None, 1.0, chainer.Variable(numpy.ones(1))),
    ],
    ids=[
        "ndarray",
        "variable",
        "empty-variable",
        "numpy-scalar",
        "float",
        "int",
        "none",
        "list",
        "no-args",
        "mixed",
    ],
)
def test_get_array_module_is_numpy(args):
    assert backend.get_array_module(*args) is numpy


def test_variable_xp_is_numpy():
    assert chainer.Variable(numpy.ones(2)).xp is numpy


@pytest.mark.parametrize(
    "args",
    [
        (numpy.ones(2),),
        (chainer.Variable(numpy.ones(2)),),
        (numpy.float32(1),),
        (None,),
        (),
        (None, numpy.ones(1)),
        (1.0,),
    ],
    ids=[
        "ndarray",
        "variable",
        "numpy-scalar",
        "none",
        "no-args",
        "none-first",
        "float",
    ],
)
def test_get_device_from_array_is_cpu(args):
    device = backend.get_device_from_array(*args)
    assert isinstance(device, backend.CpuDevice)
    assert device == backend.get_device("@numpy")


def test_cpu_device_from_array():
    assert backend.CpuDevice.from_array(numpy.ones(1)) == backend.CpuDevice()
    assert backend.CpuDevice.from_array([1.0]) is None


def test_cpu_device_supports_numpy_arrays():
    device = backend.CpuDevice()
    assert device.is_array_supported(numpy.ones(1))
    assert not device.is_array_supported([1.0])


# ---------------------------------------------------------------------------
# using_device
# ---------------------------------------------------------------------------


def test_using_device_yields_the_device():
    with backend.using_device("@numpy") as device:
        assert isinstance(device, backend.CpuDevice)
        with chainer.using_device(numpy) as inner:
            assert inner == device
        x = device.xp.zeros(2)
    assert isinstance(x, numpy.ndarray)


def test_using_device_restores_after_exception():
    with pytest.raises(KeyError), backend.using_device(-1):
        raise KeyError("inside")
    with backend.using_device("@numpy") as device:
        assert device.name == "@numpy"


def test_using_device_bad_specifier_raises_at_the_call():
    with pytest.raises(ValueError, match="invalid device specifier"):
        backend.using_device("@numpy:0")
    with pytest.raises(RuntimeError, match="ChainerX"):
        backend.using_device("native:0")


@pytest.mark.skipif(_HAS_CHAINER_CUDA, reason="chainer-cuda is installed")
def test_using_device_cupy_without_chainer_cuda():
    with (
        pytest.raises(RuntimeError, match="chainer-cuda"),
        backend.using_device("@cupy:0"),
    ):
        pass


# ---------------------------------------------------------------------------
# copyto
# ---------------------------------------------------------------------------


def test_copyto_array():
    dst = numpy.zeros((2, 3), numpy.float32)
    src = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    backend.copyto(dst, src)
    numpy.testing.assert_array_equal(dst, src)
    assert dst.dtype == numpy.float32


def test_copyto_broadcasts_and_casts():
    dst = numpy.zeros((2, 3), numpy.float32)
    backend.copyto(dst, numpy.array([1.0, 2.0, 3.0]))
    numpy.testing.assert_array_equal(dst, [[1, 2, 3], [1, 2, 3]])
    backend.copyto(dst, 7.0)
    numpy.testing.assert_array_equal(dst, numpy.full((2, 3), 7.0))


@pytest.mark.parametrize("dst", [[0.0, 0.0], None, 1.0])
def test_copyto_non_array_destination(dst):
    with pytest.raises(TypeError, match="cannot copy to"):
        backend.copyto(dst, numpy.ones(2))


def test_copyto_shape_mismatch():
    with pytest.raises(ValueError):
        backend.copyto(numpy.zeros(3), numpy.ones(4))


# ---------------------------------------------------------------------------
# ChainerX conversions (not supported)
# ---------------------------------------------------------------------------


def test_to_chx_raises():
    with pytest.raises(RuntimeError, match="ChainerX"):
        backend.to_chx(numpy.ones(1))


def test_from_chx_passes_numpy_through():
    x = numpy.ones(2)
    assert backend.from_chx(x) is x


# ---------------------------------------------------------------------------
# Import hygiene
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("autoload", [False, True], ids=["no-autoload", "autoload"])
def test_numpy_dispatch_imports_no_cupy(autoload):
    # The first op loads the plugin registry (pluggy), so that installed
    # kernel overrides apply from the start; no backend is imported by it.
    code = textwrap.dedent(
        """
        import sys
        import numpy
        import chainer
        from chainer import backend

        x = numpy.ones(3, numpy.float32)
        assert backend.get_array_module(x) is numpy
        assert backend.get_array_module(chainer.Variable(x)) is numpy
        assert backend.get_device_from_array(x).name == "@numpy"
        y = chainer.Variable(x) * 2 + 1
        y.grad = numpy.ones(3, numpy.float32)
        y.backward()
        print("cupy" in sys.modules, "chainer_cuda._device" in sys.modules)
        """
    )
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    if not autoload:
        env["CHAINER_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False"]
