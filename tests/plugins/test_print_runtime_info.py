"""Tests of chainer.print_runtime_info."""

import io
import os
import platform
import subprocess
import sys
import textwrap
import types

import numpy
import pytest

import chainer
from chainer import plugins


def _info(**kwargs):
    out = io.StringIO()
    chainer.print_runtime_info(out=out, **kwargs)
    return out.getvalue().splitlines()


def test_reports_versions():
    lines = _info()
    assert lines[0] == f"Platform: {platform.platform()}"
    assert f"Python: {platform.python_version()}" in lines
    assert f"Chainer: {chainer.__version__}" in lines
    assert f"NumPy: {numpy.__version__}" in lines
    assert any(line.startswith("CuPy: ") for line in lines)
    assert any(line.startswith("h5py: ") for line in lines)


def test_reports_host_memory_retention(monkeypatch):
    from chainer import _host_memory

    monkeypatch.setitem(_host_memory._state, "retention", 1 << 20)
    assert "Host memory retention: 1048576 bytes" in _info()
    monkeypatch.setitem(_host_memory._state, "retention", None)
    assert "Host memory retention: malloc defaults" in _info()


def test_reports_cpu_threads(monkeypatch):
    from chainer.utils import _parallel

    class Blas:
        def num_threads(self):
            return 3

        def idle_spin(self):
            return 20

    monkeypatch.setitem(_parallel._state, "team", _parallel._Team(Blas()))
    expected = "CPU threads for convolutions: 3 (OpenBLAS idle spin 2**20 cycles)"
    assert expected in _info()
    monkeypatch.setitem(_parallel._state, "team", None)
    assert "CPU threads for convolutions: off" in _info()


def test_does_not_import_cupy_or_h5py():
    cupy_before = "cupy" in sys.modules
    h5py_before = "h5py" in sys.modules
    lines = _info()
    assert ("cupy" in sys.modules) == cupy_before
    assert ("h5py" in sys.modules) == h5py_before
    if not cupy_before and "cupy" not in sys.modules:
        (cupy_line,) = [line for line in lines if line.startswith("CuPy: ")]
        assert cupy_line.endswith(("Not Available", "not imported)"))


def test_lists_plugins_with_registrations():
    plugin = types.ModuleType("runtime_info_plugin")
    plugin.register_functions = plugins.hookimpl(lambda: {"info_op": len})
    plugins.register(plugin, name="infoplugin")
    try:
        lines = _info()
    finally:
        plugins.unregister("infoplugin")
    start = lines.index("Plugins (CHAINER_DISABLE_PLUGIN_AUTOLOAD=1):")
    assert lines[start + 1] == (
        f"  core (chainer-core {chainer.__version__}): backends: numpy"
    )
    assert lines[start + 2] == (
        "  infoplugin (registered explicitly): functions: info_op"
    )


def test_defaults_to_stdout(capsys):
    chainer.print_runtime_info()
    assert f"Chainer: {chainer.__version__}" in capsys.readouterr().out


def test_rejects_output_without_write():
    with pytest.raises(TypeError, match="file-like object with write"):
        chainer.print_runtime_info(out="stdout")


def test_shows_installed_plugin_versions_with_autoload():
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    result = subprocess.run(
        [sys.executable, "-c", "import chainer; chainer.print_runtime_info()"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "Plugins:\n" in result.stdout
    assert f"  core (chainer-core {chainer.__version__})" in result.stdout
    # The example distribution is installed for tests/plugins (see
    # test_example_plugin.py).
    assert (
        "  example (chainer-plugin-example 0.1.0): backends: example; "
        "functions: example_square; links: ExampleScale; "
        "extensions: ExampleExtension; datasets: get_example_squares; "
        "kernels: ExampleSquare@numpy"
    ) in result.stdout


def test_broken_plugin_is_reported_not_raised(tmp_path):
    info = tmp_path / "broken_dist-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: broken-dist\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text("[chainer.plugins]\nbroken = no_such_mod\n")
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    env["PYTHONPATH"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "-c", "import chainer; chainer.print_runtime_info()"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert (
        textwrap.dedent(
            """\
        Plugins:
          (plugins failed to load: ImportError: chainer plugin 'broken'"""
        )
        in result.stdout
    )
