"""``pytest --gpu-suites``: the function and link suites gain a @cupy:0 run.

On a machine with a GPU, ``python -m pytest -m gpu --gpu-suites tests/links``
re-runs every backend-injected test of the catalogue on the GPU. Here the
option is checked through collection: each injected test gets a CUDA variant
marked ``gpu``, and suites that already list a CUDA configuration keep theirs.
"""

import pathlib
import subprocess
import sys

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
    assert all(name.endswith("__use_cuda_true__cuda_device_0") for name in gpu)
    stems = {name.rsplit("__", 2)[0] for name in gpu}
    injected = {name.removesuffix("__cpu") for name in cpu_only if "__cpu" in name}
    assert stems == injected
    assert _collect("-m", "gpu", relu) == []


def test_suites_listing_cuda_keep_their_own_configuration():
    sce = "tests/links/functions/loss/test_softmax_cross_entropy.py"
    assert _collect("-m", "gpu", "--gpu-suites", sce) == _collect("-m", "gpu", sce)
