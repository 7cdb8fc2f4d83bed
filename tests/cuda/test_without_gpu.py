"""chainer-cuda where CUDA is unusable: no CuPy, or CuPy without a driver/GPU.

These run everywhere. The no-CuPy case is simulated in a subprocess with
``sys.modules['cupy'] = None``; the no-driver case with a stand-in ``cupy``
package whose runtime raises, as CuPy does without a driver (it only exercises
the error path, never counts as GPU coverage).
"""

import importlib.util
import subprocess
import sys
import textwrap

import numpy
import pytest

import chainer
import chainer.links as L
import chainer_cuda
from chainer import backend
from chainer import plugins
from chainer.backends import cuda

HAS_CUPY = importlib.util.find_spec("cupy") is not None
needs_no_cuda = pytest.mark.skipif(
    chainer_cuda.is_available(), reason="a CUDA device is usable here"
)

_FAKE_CUPY = """
import numpy as _numpy

from chainer._backend_contract import REQUIRED_XP_NAMES as _NAMES

# Real CuPy mirrors NumPy's namespace; the Device contract checks that part.
globals().update({name: getattr(_numpy, name) for name in _NAMES if name != "ndarray"})


class CUDARuntimeError(RuntimeError):
    pass


class ndarray:
    pass


class _Runtime:
    @staticmethod
    def getDeviceCount():
        raise CUDARuntimeError("cudaErrorInsufficientDriver: driver too old")


class cuda:
    runtime = _Runtime()
"""


def _run(code, tmp_path=None, env=None):
    prelude = ""
    if tmp_path is not None:
        prelude = f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
    result = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _env(autoload):
    import os

    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    if not autoload:
        env["CHAINER_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


_CHECK_ERRORS = """
import numpy
import chainer
import chainer.links as L
import chainer_cuda
from chainer import backend
from chainer.backends import cuda

assert cuda.available is False
assert chainer_cuda.is_available() is False
reason = chainer_cuda.unavailable_reason()
print("REASON", reason)
calls = {
    "spec": lambda: chainer.get_device("@cupy:0"),
    "spec_current": lambda: chainer.get_device("@cupy"),
    "int": lambda: chainer.get_device(0),
    "GpuDevice": lambda: backend.GpuDevice(0),
    "to_gpu": lambda: cuda.to_gpu(numpy.ones(2)),
    "get_device_from_id": lambda: cuda.get_device_from_id(0),
    "link_to_gpu": lambda: L.Linear(2, 3).to_gpu(0),
    "link_to_device": lambda: L.Linear(2, 3).to_device("@cupy:0"),
}
for name, call in calls.items():
    try:
        call()
    except RuntimeError as exc:
        assert str(exc) == reason, (name, str(exc))
    else:
        raise AssertionError(name + " did not raise")
print("OK")
"""


def test_without_cupy_installed():
    code = "import sys; sys.modules['cupy'] = None\n" + _CHECK_ERRORS
    out = _run(code, env=_env(autoload=True))
    assert "CuPy is not installed" in out
    assert "chainer-cuda[cuda12]" in out
    assert "chainer-cuda[cuda13]" in out
    assert out.rstrip().endswith("OK")


def test_cupy_without_driver(tmp_path):
    (tmp_path / "cupy").mkdir()
    (tmp_path / "cupy" / "__init__.py").write_text(_FAKE_CUPY)
    out = _run(_CHECK_ERRORS, tmp_path=tmp_path, env=_env(autoload=True))
    assert "CuPy is installed but no CUDA device is usable" in out
    assert "cudaErrorInsufficientDriver" in out
    assert out.rstrip().endswith("OK")


@pytest.mark.skipif(not HAS_CUPY, reason="CuPy is not installed here")
@needs_no_cuda
def test_real_cupy_without_device():
    reason = chainer_cuda.unavailable_reason()
    assert "CuPy is installed but" in reason
    with pytest.raises(RuntimeError, match="no CUDA device is usable"):
        chainer.get_device("@cupy:0")


def test_import_does_not_touch_cupy():
    out = _run(
        """
        import sys
        import numpy
        import chainer
        import chainer_cuda
        from chainer_cuda import _plugin
        from chainer import backend
        backend.get_array_module(numpy.ones(1), numpy.float32(1), 3, None)
        backend.get_device_from_array(numpy.ones(1))
        chainer.get_device("@numpy")
        print("cupy" in sys.modules, chainer_cuda._probe_result)
        """,
        env=_env(autoload=True),
    )
    assert out.split() == ["False", "None"]


def test_plugin_is_listed():
    (info,) = [p for p in plugins.list_plugins() if p.name == "cuda"]
    assert info.registered["backends"] == ("cupy",)
    assert info.hooks == ("register_backends", "register_kernels")
    # Fused kernels: 11 activation nodes, LSTM and LSTMGrad, 4 softmax-family
    # and 3 batch normalization nodes, 5 convolution and 7 pooling nodes, 11
    # update rules.
    assert len(info.registered["kernels"]) == 43
    assert all(backend_name == "cupy" for _, backend_name in info.registered["kernels"])


def test_kernel_table_names_existing_classes_and_kernels():
    import ast
    import importlib
    import importlib.util

    from chainer import _dispatch
    from chainer import function_node
    from chainer import optimizer
    from chainer_cuda import _plugin

    table = _plugin.register_kernels()
    assert len(table) == 43
    for (node_ref, backend_name), kernel_ref in table.items():
        assert backend_name == "cupy"
        module_name, _, class_name = node_ref.partition(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        assert issubclass(cls, (function_node.FunctionNode, optimizer.UpdateRule))
        # Keys are matched against the module that defines the class, not
        # one that re-exports it (chainer.functions.activation.lstm).
        assert _dispatch.class_name(cls) == node_ref
        assert _dispatch.kernel_cache[cls, "cupy"] is not None, node_ref
        # The kernel modules import CuPy: check the function exists without
        # importing them.
        module_name, _, func_name = kernel_ref.partition(":")
        spec = importlib.util.find_spec(module_name)
        with open(spec.origin) as f:
            tree = ast.parse(f.read())
        functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert func_name in functions, kernel_ref


def test_lstm_kernels_reach_the_cell():
    from chainer import _dispatch
    from chainer.functions.activation import lstm as reexport
    from chainer.functions.rnn import lstm

    assert reexport.LSTM is lstm.LSTM
    for cls in (lstm.LSTM, lstm.LSTMGrad):
        assert _dispatch.kernel_cache[cls, "cupy"] is not None, cls


def test_catalogue_keys_are_left_out_without_chainer_links(monkeypatch):
    import sys

    from chainer_cuda import _plugin

    # What find_spec answers for a subpackage that is not installed.
    monkeypatch.setitem(sys.modules, "chainer.functions", None)
    table = _plugin.register_kernels()
    assert len(table) == 11
    assert all(node.startswith("chainer.optimizers.") for node, _ in table)


def test_plugin_is_listed_from_entry_point():
    out = _run(
        """
        from chainer import plugins
        for p in plugins.list_plugins():
            if p.name == "cuda":
                print(p.distribution, p.registered["backends"])
        """,
        env=_env(autoload=True),
    )
    assert out.split() == ["chainer-cuda", "('cupy',)"]


def test_backend_registered_as_chainer_cuda_device():
    cls = plugins.get_backend("cupy")
    assert cls.__module__ == "chainer_cuda._device"
    assert issubclass(cls, backend.GpuDevice)


@needs_no_cuda
@pytest.mark.parametrize("spec", ["@cupy:0", "@cupy", 0, 1, "0", 2])
def test_gpu_device_specs_raise_the_reason(spec):
    with pytest.raises(RuntimeError) as info:
        chainer.get_device(spec)
    assert str(info.value) == chainer_cuda.unavailable_reason()


def _deprecated_link_to_gpu():
    # Link.to_gpu is deprecated (Chainer 7.8 warns); it still names what is
    # missing.
    with pytest.warns(DeprecationWarning, match="to_gpu"):
        L.Linear(2, 3).to_gpu()


@needs_no_cuda
@pytest.mark.parametrize(
    "call",
    [
        lambda: backend.GpuDevice(0),
        lambda: backend.GpuDevice.from_device_id(0),
        lambda: cuda.to_gpu(numpy.ones(3)),
        lambda: cuda.copy(numpy.ones(3)),
        lambda: cuda.get_device_from_id(0),
        lambda: cuda.elementwise("T x", "T y", "y = x", "k"),
        lambda: cuda.check_cuda_available(),
        lambda: _deprecated_link_to_gpu(),
        lambda: chainer.Variable(numpy.ones(2)).to_device("@cupy:0"),
        lambda: backend.using_device("@cupy:0").__enter__(),
    ],
)
def test_gpu_calls_raise_the_reason(call):
    with pytest.raises(RuntimeError, match="chainer-cuda") as info:
        call()
    assert str(info.value) == chainer_cuda.unavailable_reason()


@needs_no_cuda
def test_facade_host_paths_work():
    x = numpy.arange(6, dtype=numpy.float32)
    assert cuda.available is False
    assert cuda.to_cpu(x) is x
    assert cuda.to_cpu(None) is None
    assert cuda.to_cpu([x, None])[0] is x
    assert cuda.to_cpu(numpy.float32(2)).shape == ()
    assert cuda.get_array_module(x) is numpy
    assert cuda.get_array_module(chainer.Variable(x)) is numpy
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    assert cuda.get_device_from_array(x) is cuda.DummyDevice
    with cuda.DummyDevice:
        cuda.DummyDevice.use()
    assert repr(cuda.DummyDevice) == "DummyDevice"

    calls = []

    @cuda.memoize()
    def square(v):
        calls.append(v)
        return v * v

    assert square(3) == 9
    cuda.clear_memo()

    @cuda.fuse()
    def axpy(a, b):
        return 2 * a + b

    numpy.testing.assert_array_equal(axpy(x, x), 3 * x)
    assert cuda.should_use_cudnn(">=auto") is False


def test_is_available_is_cached():
    first = chainer_cuda.is_available()
    assert chainer_cuda._probe_result is not None
    assert chainer_cuda.is_available() is first


def test_numpy_arrays_never_dispatch_to_cupy():
    x = numpy.ones((2, 2), dtype=numpy.float32)
    assert backend.get_array_module(x) is numpy
    assert backend.get_device_from_array(x) == backend.CpuDevice()
    assert L.Linear(2, 3).to_device("@numpy").xp is numpy
