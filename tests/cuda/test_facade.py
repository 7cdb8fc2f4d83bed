"""``chainer.backends.cuda`` finds its implementation through the registry.

The facade in chainer-core never names ``chainer_cuda``: it asks the backend
registered as ``'cupy'`` for its documented ``legacy_cuda_module`` attribute,
and looks again whenever the registry changes.
"""

import ast
import pathlib

import numpy
import pytest

import chainer
import chainer_cuda
from chainer import plugins
from chainer.backends import cuda
from chainer_cuda import _device
from chainer_cuda import _plugin

CORE_SRC = pathlib.Path(chainer.__file__).parent
DEFAULT_REASON = "CUDA environment is not available"


def _core_files():
    # chainer-core's own modules: the other distributions ship subpackages of
    # chainer under other roots.
    return sorted(p for p in CORE_SRC.rglob("*.py") if "__pycache__" not in p.parts)


def _names_chainer_cuda(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name.split(".")[0] == "chainer_cuda" for a in node.names):
                return node.lineno
        elif isinstance(node, ast.ImportFrom):
            if (node.module or "").split(".")[0] == "chainer_cuda":
                return node.lineno
        elif isinstance(node, ast.Call):
            for arg in node.args:
                if (
                    isinstance(arg, ast.Constant)
                    and isinstance(arg.value, str)
                    and arg.value.split(".")[0].split(":")[0] == "chainer_cuda"
                ):
                    return node.lineno
    return None


def test_core_never_imports_chainer_cuda():
    assert _core_files()
    found = []
    for path in _core_files():
        line = _names_chainer_cuda(ast.parse(path.read_text(), str(path)))
        if line is not None:
            found.append(f"{path.relative_to(CORE_SRC)}:{line}")
    assert found == [], "chainer-core imports chainer_cuda at " + ", ".join(found)


def test_backend_documents_its_legacy_module():
    assert _device.GpuDevice.legacy_cuda_module == "chainer_cuda.legacy"
    assert plugins.get_backend("cupy").legacy_cuda_module == "chainer_cuda.legacy"


@pytest.fixture
def without_cuda_plugin():
    """Unregisters the ``cuda`` plugin for one test, then registers it again."""
    plugins.unregister("cuda")
    try:
        yield
    finally:
        if "cuda" in {p.name for p in plugins.list_plugins()}:
            plugins.unregister("cuda")
        plugins.register(_plugin, name="cuda")


@pytest.mark.skipif(chainer_cuda.is_available(), reason="a CUDA device is usable")
def test_facade_follows_the_registry(without_cuda_plugin):
    # No 'cupy' backend: the default message, which names what to install.
    with pytest.raises(RuntimeError) as info:
        cuda.check_cuda_available()
    assert str(info.value).startswith(DEFAULT_REASON)
    assert "chainer-cuda" in str(info.value)
    # chainer-cuda's backend registered: its own reason (what exactly is missing).
    plugins.register(_plugin, name="cuda")
    with pytest.raises(RuntimeError) as info:
        cuda.to_gpu(numpy.ones(2))
    assert str(info.value) == chainer_cuda.unavailable_reason()
    assert cuda.available is False
    # Host-side helpers keep working either way.
    x = numpy.ones(2)
    assert cuda.to_cpu(x) is x
    assert cuda.get_device_from_id(None) is cuda.DummyDevice


def _register_backend(tmp_path, monkeypatch, module_text, ref=None):
    # A module name of its own per test: imported modules stay in sys.modules.
    name = f"fake_legacy_cuda_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(module_text)
    monkeypatch.syspath_prepend(str(tmp_path))
    if ref is None:
        ref = name

    class StandIn(_device.GpuDevice):
        legacy_cuda_module = ref

    class Plugin:
        @staticmethod
        @plugins.hookimpl
        def register_backends():
            return {"cupy": StandIn}

    plugins.register(Plugin, name="stand-in-cuda")
    return StandIn


def test_usable_implementation_answers_every_name(
    without_cuda_plugin, tmp_path, monkeypatch
):
    _register_backend(
        tmp_path,
        monkeypatch,
        "available = True\nunavailable_reason = None\n"
        "def to_gpu(array, device=None, stream=None):\n    return ('gpu', array)\n"
        "cudnn_enabled = True\n",
    )
    try:
        assert cuda.available is True
        assert cuda.to_gpu(1) == ("gpu", 1)
        assert cuda.cudnn_enabled is True
        assert "to_gpu" in dir(cuda)
        assert "to_gpu" in cuda.__all__
        with pytest.raises(AttributeError, match="no attribute 'to_cpu'"):
            cuda.to_cpu  # noqa: B018 - the implementation defines no to_cpu
    finally:
        plugins.unregister("stand-in-cuda")
    # Unregistered: back to the host-side implementation.
    assert cuda.available is False
    with pytest.raises(RuntimeError, match=DEFAULT_REASON):
        cuda.to_gpu(1)


def test_unusable_implementation_gives_its_reason(
    without_cuda_plugin, tmp_path, monkeypatch
):
    _register_backend(
        tmp_path,
        monkeypatch,
        "available = False\nunavailable_reason = 'no GPU in this test'\n",
    )
    try:
        assert cuda.available is False
        with pytest.raises(RuntimeError, match="^no GPU in this test$"):
            cuda.elementwise("T x", "T y", "y = x", "copy")
        with pytest.raises(AttributeError, match="no GPU in this test"):
            cuda.cupy.ndarray  # noqa: B018
    finally:
        plugins.unregister("stand-in-cuda")


def test_unimportable_implementation_is_named(
    without_cuda_plugin, tmp_path, monkeypatch
):
    _register_backend(tmp_path, monkeypatch, "", ref="no_such_module_for_cuda")
    try:
        with pytest.raises(RuntimeError) as info:
            cuda.check_cuda_available()
        assert "legacy_cuda_module names 'no_such_module_for_cuda'" in str(info.value)
    finally:
        plugins.unregister("stand-in-cuda")
