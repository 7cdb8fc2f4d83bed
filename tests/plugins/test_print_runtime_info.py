"""Tests of chainer.print_runtime_info."""

import inspect
import io
import os
import platform
import subprocess
import sys
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


def test_reports_cpu_threads_without_chainer_cpu():
    # The team is chainer-cpu's (tests/cpu/test_runtime_info.py covers its
    # lines); autoloading is off here, so no plugin runs one.
    expected = (
        "CPU threads for convolutions: no thread team (the chainer-cpu plugin "
        "is not loaded)"
    )
    assert expected in _info()


def test_does_not_import_cupy_or_h5py():
    cupy_before = "cupy" in sys.modules
    h5py_before = "h5py" in sys.modules
    lines = _info()
    assert ("cupy" in sys.modules) == cupy_before
    assert ("h5py" in sys.modules) == h5py_before
    if not cupy_before and "cupy" not in sys.modules:
        (cupy_line,) = [line for line in lines if line.startswith("CuPy: ")]
        assert cupy_line.endswith(("Not Available", "not imported)"))


def _register_info_plugin():
    plugin = types.ModuleType("runtime_info_plugin")
    plugin.register_functions = plugins.hookimpl(
        lambda: {"info_op": len, "info_other_op": abs}
    )
    plugin.register_links = plugins.hookimpl(lambda: {"InfoLink": object})
    plugins.register(plugin, name="infoplugin")


def test_one_line_per_plugin_with_counts():
    _register_info_plugin()
    try:
        lines = _info()
    finally:
        plugins.unregister("infoplugin")
    start = lines.index("Plugins (CHAINER_DISABLE_PLUGIN_AUTOLOAD=1):")
    assert lines[start + 1 :] == [
        f"  core (chainer-core {chainer.__version__}): 1 backend",
        "  infoplugin (registered explicitly): 2 functions, 1 link",
    ]


def test_verbose_lists_the_names():
    _register_info_plugin()
    try:
        lines = _info(verbose=True)
    finally:
        plugins.unregister("infoplugin")
    start = lines.index("Plugins (CHAINER_DISABLE_PLUGIN_AUTOLOAD=1):")
    assert lines[start + 1 :] == [
        f"  core (chainer-core {chainer.__version__}): 1 backend",
        "    backends: numpy",
        "  infoplugin (registered explicitly): 2 functions, 1 link",
        "    functions: info_op, info_other_op",
        "    links: InfoLink",
    ]


def test_signature_stays_compatible_with_chainer7():
    # Chainer 7: print_runtime_info(out=None); the flag is keyword-only.
    parameters = inspect.signature(chainer.print_runtime_info).parameters
    assert list(parameters) == ["out", "verbose"]
    assert parameters["out"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert parameters["verbose"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["verbose"].default is False


def test_failed_plugin_line_shows_its_error(monkeypatch):
    records = [
        types.SimpleNamespace(
            name="good",
            distribution="good-dist",
            version="1.2",
            hooks=("register_functions",),
            registered={
                "functions": ("f",),
                # Kernel keys name the node by class or by 'module:Class'.
                "kernels": (
                    (chainer.FunctionNode, "numpy"),
                    ("my_mod.nodes:MyNode", "cupy"),
                ),
            },
            error=None,
        ),
        types.SimpleNamespace(
            name="bad",
            distribution="bad-dist",
            version="0.3",
            hooks=(),
            registered={},
            error="ImportError: No module named 'bad_mod'",
        ),
    ]
    monkeypatch.setattr(plugins, "list_plugins", lambda: records)
    lines = _info(verbose=True)
    start = lines.index("Plugins (CHAINER_DISABLE_PLUGIN_AUTOLOAD=1):")
    assert lines[start + 1 :] == [
        "  good (good-dist 1.2): 1 function, 2 kernels",
        "    functions: f",
        "    kernels: FunctionNode@numpy, MyNode@cupy",
        "  bad (bad-dist 0.3): failed, skipped: ImportError: No module named 'bad_mod'",
    ]


def test_reports_each_distribution_version(monkeypatch):
    from importlib import metadata

    from chainer import _runtime_info

    (line,) = [x for x in _info() if x.startswith("Chainer distributions: ")]
    assert f"chainer-core {metadata.version('chainer-core')}" in line
    versions = {"chainer-core": "7.9.0", "chainer-mn": "7.9.1"}
    monkeypatch.setattr(_runtime_info, "_distribution_version", versions.get)
    assert (
        "Chainer distributions: chainer-core 7.9.0, chainer-mn 7.9.1; "
        "not installed: chainer-links, chainer-training, chainer-datasets, "
        "chainer-cpu, chainer-cuda"
    ) in _info()


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
    lines = result.stdout.splitlines()
    plugin_lines = lines[lines.index("Plugins:") + 1 :]
    assert f"  core (chainer-core {chainer.__version__}): 1 backend" in plugin_lines
    # The example distribution is installed for tests/plugins (see
    # test_example_plugin.py).
    assert (
        "  example (chainer-plugin-example 0.1.0): 1 backend, 1 function, "
        "1 link, 1 extension, 1 dataset, 1 kernel"
    ) in plugin_lines
    # One short line per plugin: the catalogue's names are behind verbose=True
    # (it was about 6 KB of names).
    assert all(line.startswith("  ") for line in plugin_lines)
    assert not any(line.startswith("    ") for line in plugin_lines)
    assert "example_square" not in result.stdout
    assert len(result.stdout) < 2048


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
    lines = result.stdout.splitlines()
    plugin_lines = lines[lines.index("Plugins:") + 1 :]
    (broken,) = [line for line in plugin_lines if line.startswith("  broken ")]
    assert broken.startswith("  broken (broken-dist 0.1): failed, skipped: ")
    assert "no_such_mod" in broken
    assert f"  core (chainer-core {chainer.__version__}): 1 backend" in plugin_lines
