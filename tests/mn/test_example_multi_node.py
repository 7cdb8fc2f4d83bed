"""examples/mnist/train_mnist_multi_node.py on two processes.

One tiny epoch on the example's synthetic data (``--dataset synthetic``),
then a resumed second epoch from the checkpoints; and the clean exit of every
process when rank 0 cannot load the data.
"""

import json
import pathlib

import pytest

pytestmark = pytest.mark.mpi

SCRIPT = (
    pathlib.Path(__file__).resolve().parents[2]
    / "examples"
    / "mnist"
    / "train_mnist_multi_node.py"
)
TINY = ["--dataset", "synthetic", "--unit", "16", "--batchsize", "50"]


def _log(out):
    with open(out / "log") as f:
        return json.load(f)


def test_trains_checkpoints_and_resumes(mpirun, tmp_path):
    out = tmp_path / "result"
    run = mpirun(2, SCRIPT, *TINY, "--epoch", "1", "--out", out)
    assert run.returncode == 0, run.describe()
    assert "Processes: 2" in run.stdout
    assert run.stdout.count("Processes:") == 1  # only rank 0 reports
    (entry,) = _log(out)
    assert entry["epoch"] == 1
    # 3000 examples, 1500 per process, 50 per minibatch.
    assert entry["iteration"] == 30
    for key in ("main/loss", "validation/main/loss", "validation/main/accuracy"):
        assert key in entry
    assert entry["validation/main/accuracy"] > 0.3
    files = sorted(p.name for p in out.iterdir())
    assert files == ["log", "mnist.0.30", "mnist.1.30"]

    run = mpirun(2, SCRIPT, *TINY, "--epoch", "2", "--out", out, "--resume", out)
    assert run.returncode == 0, run.describe()
    log = _log(out)
    assert [(e["epoch"], e["iteration"]) for e in log] == [(1, 30), (2, 60)]
    assert log[1]["main/loss"] < log[0]["main/loss"]
    assert {"mnist.0.60", "mnist.1.60"} <= {p.name for p in out.iterdir()}


def test_every_process_exits_when_the_data_is_missing(mpirun, tmp_path):
    root = tmp_path / "dataset_root"
    root.mkdir()
    # No MNIST under the empty dataset root, and downloads refused at once.
    env = {
        "CHAINER_DATASET_ROOT": str(root),
        "http_proxy": "http://127.0.0.1:9",
        "https_proxy": "http://127.0.0.1:9",
        "no_proxy": "",
    }
    out = tmp_path / "result"
    run = mpirun(2, SCRIPT, "--dataset", "mnist", "--out", out, env=env)
    assert run.returncode != 0
    assert "error: cannot load mnist" in run.stderr
    assert "apt-get install dataset-fashion-mnist" in run.stderr
    assert "Traceback" not in run.stderr
    assert run.elapsed < 30  # not the communication timeout
