"""print_runtime_info's CPU threads line, which chainer-cpu provides."""

import io

import chainer
from chainer_cpu import _parallel


def _info():
    out = io.StringIO()
    chainer.print_runtime_info(out=out)
    return out.getvalue().splitlines()


def test_reports_cpu_threads(cpu_plugin, monkeypatch):
    class Blas:
        def num_threads(self):
            return 3

        def idle_spin(self):
            return 20

    monkeypatch.setitem(_parallel._state, "team", _parallel._Team(Blas()))
    expected = (
        "CPU threads for convolutions: 3 (OpenBLAS idle spin 2**20 cycles); GEMM: "
    )
    assert any(line.startswith(expected) for line in _info())
    monkeypatch.setitem(_parallel._state, "team", None)
    monkeypatch.delenv("CHAINER_CPU_PARALLEL", raising=False)
    monkeypatch.setitem(_parallel._state, "configured", False)
    assert any(
        line.startswith("CPU threads for convolutions: not set up yet")
        for line in _info()
    )
    monkeypatch.setitem(_parallel._state, "configured", True)
    assert any(
        line.startswith("CPU threads for convolutions: off (no OpenBLAS")
        for line in _info()
    )
    monkeypatch.setenv("CHAINER_CPU_PARALLEL", "0")
    assert any(
        line.startswith("CPU threads for convolutions: off (CHAINER_CPU_PARALLEL)")
        for line in _info()
    )


def test_threads_line_sees_the_plugin_before_any_op():
    # Nothing has loaded the registry yet: the report loads it rather than
    # saying that chainer-cpu is missing.
    import os
    import subprocess
    import sys

    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CHAINER_DISABLE_PLUGIN_AUTOLOAD", "CHAINER_DISABLED_PLUGINS")
    }
    code = (
        "import chainer\n"
        "from chainer.utils import _parallel\n"
        "print(_parallel.describe_threads())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "not loaded" not in result.stdout
