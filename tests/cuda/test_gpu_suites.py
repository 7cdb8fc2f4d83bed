"""``pytest --gpu-suites``: the function and link suites gain a @cupy:0 run.

On a machine with a GPU, ``python -m pytest -m gpu --gpu-suites tests/links``
re-runs every backend-injected test of the catalogue on the GPU. Here the
option is checked through collection: each injected test gets a CUDA variant
marked ``gpu``, and suites that already list a CUDA configuration keep theirs.
"""

import pathlib
import subprocess
import sys

from chainer.testing import BackendConfig

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _collect(*args):
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--co", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    # 5: nothing collected (every test deselected by the marker expression).
    assert proc.returncode in (0, 5), proc.stdout + proc.stderr
    return [line for line in proc.stdout.splitlines() if "::" in line]


def test_every_injected_test_gains_a_gpu_variant():
    relu = "tests/links/functions/activation/test_relu.py"
    cpu_only = _collect("-m", "not gpu", relu)
    gpu = _collect("-m", "gpu", "--gpu-suites", relu)
    assert gpu, "no gpu variants were collected"
    # One class per configuration, named <Class>_<config.get_func_str()>.
    cpu_str = BackendConfig({}).get_func_str()
    gpu_str = BackendConfig({"use_cuda": True}).get_func_str()
    assert all(gpu_str in name for name in gpu)
    injected = {name.replace(cpu_str, gpu_str) for name in cpu_only if cpu_str in name}
    assert set(gpu) == injected
    assert _collect("-m", "gpu", relu) == []


def test_suites_listing_cuda_keep_their_own_configuration():
    sce = "tests/links/functions/loss/test_softmax_cross_entropy.py"
    assert _collect("-m", "gpu", "--gpu-suites", sce) == _collect("-m", "gpu", sce)
