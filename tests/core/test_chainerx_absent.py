"""Without ChainerX and iDeep, Chainer 7's code paths behave as in Chainer 7.

chainer-core ships a top-level ``chainerx`` module (as Chainer's wheel does)
whose ``is_available()`` is False; ``chainer.backends.intel64`` reports iDeep
as unavailable. Scripts written for Chainer 7 import both and branch on them.
"""

import subprocess
import sys

import chainerx
import numpy
import pytest

import chainer
from chainer import backend
from chainer.backends import _chainerx
from chainer.backends import _cpu
from chainer.backends import intel64

# -- the chainerx module -----------------------------------------------------


def test_chainerx_is_not_available():
    assert chainerx.is_available() is False


def test_chainerx_ndarray_is_a_type_nothing_is_an_instance_of():
    assert isinstance(chainerx.ndarray, type)
    assert not isinstance(numpy.ones(2), chainerx.ndarray)
    with pytest.raises(RuntimeError, match="chainerx is not available"):
        chainerx.ndarray((2,), numpy.float32)


def test_other_chainerx_names_say_chainerx_is_missing():
    assert not hasattr(chainerx, "Device")
    with pytest.raises(AttributeError, match="ChainerX is not available"):
        chainerx.get_device("native:0")


# -- devices -----------------------------------------------------------------


@pytest.mark.parametrize("spec", ["native", "native:0", "cuda:0", "foo"])
def test_chainerx_device_specifiers_raise_a_chainerx_error(spec):
    with pytest.raises(RuntimeError, match="ChainerX"):
        chainer.get_device(spec)
    with pytest.raises(RuntimeError, match="ChainerX"):
        chainer.using_device(spec)


@pytest.mark.parametrize("spec", ["-1", "@numpy", -1, numpy])
def test_cpu_specifiers_of_chainer7_examples(spec):
    device = chainer.get_device(spec)
    assert device == backend.CpuDevice()
    assert device.xp is numpy
    assert device.xp is not chainerx
    device.use()
    with chainer.using_device(spec) as current:
        assert current == device


def test_backend_device_classes():
    assert backend.ChainerxDevice is _chainerx.ChainerxDevice
    assert backend.Intel64Device is intel64.Intel64Device
    assert backend.CpuDevice is _cpu.CpuDevice
    assert chainer._backend.Device is backend.Device
    for cls in (backend.ChainerxDevice, backend.Intel64Device, backend.CpuDevice):
        assert issubclass(cls, backend.Device)
    with pytest.raises(RuntimeError, match="ChainerX is not available"):
        backend.ChainerxDevice(None)
    with pytest.raises(RuntimeError, match="iDeep is not available"):
        backend.Intel64Device()
    with pytest.raises(RuntimeError, match="iDeep is not available"):
        chainer.get_device("@intel64")


def test_array_helpers():
    x = numpy.ones(3)
    assert backend.from_chx(x) is x
    assert backend.from_chx((x, None)) == (x, None)
    with pytest.raises(RuntimeError, match="ChainerX is not available"):
        backend.to_chx(x)
    with pytest.raises(TypeError, match="invalid type"):
        backend.from_chx(object())
    assert _cpu._to_cpu(x) is x
    assert _cpu._array_to_cpu(None) is None
    assert isinstance(_cpu._to_cpu(numpy.float32(2)), numpy.ndarray)
    assert backend._contains_nan(numpy.array([1.0, numpy.nan]))
    assert not backend._contains_nan(numpy.arange(3))


def test_intel64_module():
    assert intel64.is_ideep_available() is False
    assert intel64.should_use_ideep("==always") is False
    assert intel64.should_use_ideep(">=auto") is False
    assert intel64.inputs_all_ready((numpy.ones((2, 2)),)) is False
    assert not isinstance(numpy.ones(2), intel64.mdarray)
    with pytest.raises(RuntimeError, match="iDeep is not available"):
        intel64.check_ideep_available()


# -- Link and Variable -------------------------------------------------------


class _Net(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.p = chainer.Parameter(numpy.ones((2, 2), numpy.float32))
        self.add_persistent("stat", numpy.zeros(2, numpy.float32))


def test_link_device_methods():
    net = _Net()
    with pytest.raises(RuntimeError, match="ChainerX is not available"):
        net.to_chx()
    p = net.p.array
    assert net.from_chx() is net
    assert net.p.array is p
    with (
        pytest.warns(DeprecationWarning, match="to_intel64"),
        pytest.raises(RuntimeError, match="iDeep is not available"),
    ):
        net.to_intel64()
    with pytest.warns(DeprecationWarning, match=r"to_device\('@numpy'\)"):
        assert net.to_cpu() is net
    assert net.to_device("@numpy") is net
    assert net.p.array is p


def test_variable_device_methods():
    v = chainer.Variable(numpy.ones(3, numpy.float32))
    with pytest.raises(RuntimeError, match="ChainerX is not available"):
        v.to_chx()
    with pytest.raises(RuntimeError, match="iDeep is not available"):
        v.to_intel64()
    data = v.array
    v.from_chx()
    assert v.array is data
    # Variable.to_cpu is not deprecated in Chainer 7.8 (Link.to_cpu is).
    v.to_cpu()
    v.to_device("@numpy")
    assert v.array is data


def test_chainer7_example_header_runs_on_cpu():
    # The way Chainer 7's examples start, as a script of its own.
    code = (
        "import chainerx\n"
        "import chainer\n"
        "import chainer.links as L\n"
        "device = chainer.get_device('-1')\n"
        "device.use()\n"
        "model = L.Linear(3, 2)\n"
        "model.to_device(device)\n"
        "if device.xp is chainerx:\n"
        "    raise SystemExit('not chainerx')\n"
        "print(chainerx.is_available(), type(device).__name__, model.xp.__name__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if "No module named 'chainer.links'" in result.stderr:
        pytest.skip("chainer-links is not installed")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "CpuDevice", "numpy"]


def test_native_device_in_a_script_is_a_clear_error():
    code = "import chainer\nchainer.get_device('native')\n"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "RuntimeError" in result.stderr
    assert "ChainerX is not available" in result.stderr
