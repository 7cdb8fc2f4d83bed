"""Tests of the root conftest: hermetic plugins, hardware skips, seeded RNG."""

import importlib.util
import os
import pathlib
import subprocess
import sys
import textwrap
import zlib

import numpy

from chainer import plugins

_TESTS = pathlib.Path(__file__).resolve().parents[1]
_ROOT = _TESTS.parent


def test_plugin_autoload_is_off():
    assert os.environ["CHAINER_DISABLE_PLUGIN_AUTOLOAD"] == "1"
    assert "chainer_plugin_example" not in sys.modules or "example" not in {
        info.name for info in plugins.list_plugins()
    }


def test_numpy_rng_is_seeded_from_the_test_id(request):
    drawn = numpy.random.random_sample(3)
    expected = numpy.random.RandomState(zlib.crc32(request.node.nodeid.encode()))
    numpy.testing.assert_array_equal(drawn, expected.random_sample(3))


def test_gpu_and_mpi_tests_are_skipped_with_reasons(tmp_path):
    (tmp_path / "test_marked.py").write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.mark.gpu
            def test_gpu():
                pass

            @pytest.mark.mpi
            def test_mpi():
                pass

            def test_plain():
                pass
            """
        )
    )
    env = dict(os.environ)
    # Third-party pytest plugins are irrelevant here and slow to start.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(
        [str(_TESTS), *filter(None, [env.get("PYTHONPATH")])]
    )
    # The root conftest is loaded as a plugin module named ``conftest``.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "conftest",
            "-c",
            str(_ROOT / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            "-p",
            "no:cacheprovider",
            "-rs",
            str(tmp_path / "test_marked.py"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    has_cupy = importlib.util.find_spec("cupy") is not None
    has_mpi = importlib.util.find_spec("mpi4py") is not None
    if not has_cupy:
        assert "needs CuPy, which is not installed" in out
    if not has_mpi:
        assert "needs mpi4py, which is not installed" in out
    skipped = (not has_cupy) + (not has_mpi)
    if skipped:
        assert f"{skipped} skipped" in out
    assert f"{3 - skipped} passed" in out
