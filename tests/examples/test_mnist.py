"""Tests of examples/mnist: the Trainer, custom-loop, parallel and predict scripts.

The dataset getters are replaced by a tiny learnable dataset of the real
shapes and dtypes; one slow test trains on the real Fashion-MNIST where
Debian's dataset-fashion-mnist package is installed.
"""

import os
import re

import numpy
import pytest

import chainer
from chainer.training import extensions

FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Small enough that a run of a few epochs takes well under a second.
TINY = ["--unit", "32", "--batchsize", "20"]
REAL_GET_FASHION_MNIST = chainer.datasets.get_fashion_mnist


def _tiny_dataset(n, seed):
    # Each class is a fixed random image plus noise: learnable in a few epochs.
    prototypes = numpy.random.RandomState(0).uniform(0, 1, (10, 784))
    rng = numpy.random.RandomState(seed)
    labels = rng.randint(0, 10, n).astype(numpy.int32)
    images = prototypes[labels] + rng.normal(0, 0.3, (n, 784))
    images = numpy.clip(images, 0, 1).astype(numpy.float32)
    return chainer.datasets.TupleDataset(images, labels)


def _fake_getter(**kwargs):
    return _tiny_dataset(200, seed=1), _tiny_dataset(100, seed=2)


@pytest.fixture(autouse=True)
def tiny_data(monkeypatch):
    """Both getters return 200 training and 100 test examples."""
    monkeypatch.setattr(chainer.datasets, "get_fashion_mnist", _fake_getter)
    monkeypatch.setattr(chainer.datasets, "get_mnist", _fake_getter)


def _is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == PNG_SIGNATURE


def _losses(log):
    return [entry["main/loss"] for entry in log if "main/loss" in entry]


# ------------------------------------------------------------ train_mnist.py


def test_train_mnist_writes_its_outputs_and_learns(load_example, read_log):
    module = load_example("mnist/train_mnist.py")
    result = module.main(["--epoch", "2", *TINY])

    files = set(os.listdir("result"))
    assert {"log", "cg.dot", "loss.png", "accuracy.png"} <= files
    snapshots = sorted(f for f in files if "_iter_" in f)
    # Every model, the latest trainer snapshot only.
    assert snapshots == ["model_iter_10", "model_iter_20", "snapshot_iter_20"]
    assert _is_png("result/loss.png")
    assert _is_png("result/accuracy.png")
    with open("result/cg.dot") as f:
        assert f.read().startswith("digraph")

    log = read_log("result")
    # Epoch 0: the initial model's validation results (call_before_training).
    assert [e["epoch"] for e in log] == [0, 1, 2]
    assert "main/loss" not in log[0]
    assert log[0]["validation/main/accuracy"] < 0.5
    losses = _losses(log)
    assert losses[-1] < losses[0]
    assert log[-1]["validation/main/loss"] < log[0]["validation/main/loss"]
    assert result["validation/main/accuracy"] > 0.5
    assert result["epoch"] == 2


def test_train_mnist_resumes_from_a_snapshot(load_example, read_log):
    module = load_example("mnist/train_mnist.py")
    module.main(["--epoch", "2", *TINY, "--noplot"])
    assert not os.path.exists("result/loss.png")
    first = read_log("result")

    result = module.main(
        ["--epoch", "3", *TINY, "--noplot", "--resume", "result/snapshot_iter_20"]
    )
    log = read_log("result")
    assert result["epoch"] == 3
    assert log[: len(first)] == first  # the log goes on from the snapshot
    assert [e["epoch"] for e in log] == [0, 1, 2, 3]
    assert log[-1]["iteration"] == 30  # 10 iterations per epoch
    assert os.path.exists("result/snapshot_iter_30")


def test_train_mnist_autoload(load_example, read_log):
    module = load_example("mnist/train_mnist.py")
    module.main(["--epoch", "2", *TINY, "--noplot", "--autoload"])
    assert [e["epoch"] for e in read_log("result")] == [1, 2]
    result = module.main(["--epoch", "3", *TINY, "--noplot", "--autoload"])
    assert result["iteration"] == 30
    assert [e["epoch"] for e in read_log("result")] == [1, 2, 3]


def test_train_mnist_without_matplotlib(load_example, monkeypatch, capsys):
    monkeypatch.setattr(extensions.PlotReport, "available", staticmethod(lambda: False))
    module = load_example("mnist/train_mnist.py")
    module.main(["--epoch", "1", *TINY])
    assert "matplotlib is not installed" in capsys.readouterr().out
    assert not os.path.exists("result/loss.png")
    assert os.path.exists("result/log")


def test_train_mnist_snapshot_frequency(load_example):
    module = load_example("mnist/train_mnist.py")
    module.main(["--epoch", "2", *TINY, "--noplot", "--frequency", "2"])
    snapshots = sorted(f for f in os.listdir("result") if "_iter_" in f)
    assert snapshots == ["model_iter_20", "snapshot_iter_20"]


def test_help(run_script):
    done = run_script("mnist/train_mnist.py", "--help")
    assert done.returncode == 0, done.stderr
    for flag in ("--device", "--epoch", "--batchsize", "--out", "--resume"):
        assert flag in done.stdout
    assert "fashion-mnist" in done.stdout


@pytest.mark.parametrize(
    "script",
    [
        "mnist/train_mnist_custom_loop.py",
        "mnist/train_mnist_data_parallel.py",
        "mnist/train_mnist_model_parallel.py",
        "mnist/predict_mnist.py",
    ],
)
def test_help_of_the_other_scripts(load_example, capsys, script):
    module = load_example(script)
    with pytest.raises(SystemExit) as e:
        module.main(["--help"])
    assert e.value.code == 0
    assert "--dataset" in capsys.readouterr().out


@pytest.mark.parametrize("error", [OSError, RuntimeError])
@pytest.mark.parametrize(
    "script",
    [
        "mnist/train_mnist.py",
        "mnist/train_mnist_custom_loop.py",
        "mnist/train_mnist_data_parallel.py",
        "mnist/train_mnist_model_parallel.py",
    ],
)
def test_missing_data_exits_with_the_apt_hint(load_example, monkeypatch, script, error):
    def missing(**kwargs):
        raise error("Fashion-MNIST: cannot find train-images-idx3-ubyte.gz")

    monkeypatch.setattr(chainer.datasets, "get_fashion_mnist", missing)
    module = load_example(script)
    with pytest.raises(SystemExit) as e:
        module.main([])
    message = str(e.value.code)
    assert "cannot find train-images-idx3-ubyte.gz" in message
    assert "sudo apt-get install dataset-fashion-mnist" in message


def test_bad_arguments_give_usage_errors(load_example, capsys):
    module = load_example("mnist/train_mnist.py")
    with pytest.raises(SystemExit) as e:
        module.main(["--dataset", "cifar"])
    assert e.value.code == 2
    assert "invalid choice: 'cifar'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        module.main(["--resume", "no/such/snapshot"])
    assert "no such file: no/such/snapshot" in capsys.readouterr().err


def test_dataset_mnist_uses_get_mnist(load_example, monkeypatch):
    calls = []

    def get_mnist(**kwargs):
        calls.append(kwargs)
        return _fake_getter()

    monkeypatch.setattr(chainer.datasets, "get_mnist", get_mnist)
    module = load_example("mnist/train_mnist.py")
    module.main(["--epoch", "1", *TINY, "--noplot", "--dataset", "mnist"])
    assert calls == [{}]


# ---------------------------------------------------------- predict_mnist.py


def test_predict_with_a_model_snapshot(load_example, capsys):
    train = load_example("mnist/train_mnist.py")
    train.main(["--epoch", "3", *TINY, "--noplot"])
    predict = load_example("mnist/predict_mnist.py")
    capsys.readouterr()

    predicted, label = predict.main(
        ["result/model_iter_30", "--unit", "32", "--index", "3", "--image", "x.png"]
    )
    out = capsys.readouterr().out
    assert f"label: {label} (" in out
    assert f"predicted label: {predicted} (" in out
    assert _is_png("x.png")

    with pytest.raises(SystemExit):
        predict.main(["result/model_iter_30", "--unit", "64"])
    assert "does not fit an MLP with --unit 64" in capsys.readouterr().err


def test_predict_without_a_model_file(run_script):
    done = run_script("mnist/predict_mnist.py", "no_such_model")
    assert done.returncode == 2
    assert "no such model file: no_such_model" in done.stderr
    assert "Traceback" not in done.stderr


# ------------------------------------------------ train_mnist_custom_loop.py


def _epoch_lines(text):
    pattern = r"epoch:(\d+) train_loss:([\d.]+) .* val_accuracy:([\d.]+)"
    return [
        (int(e), float(loss), float(acc)) for e, loss, acc in re.findall(pattern, text)
    ]


def test_custom_loop_trains_saves_and_resumes(load_example, capsys):
    module = load_example("mnist/train_mnist_custom_loop.py")
    result = module.main(["--epoch", "2", *TINY])
    lines = _epoch_lines(capsys.readouterr().out)
    assert [e for e, _, _ in lines] == [1, 2]
    assert lines[1][1] < lines[0][1]  # the training loss decreases
    assert result["epoch"] == 2
    assert abs(result["val_accuracy"] - lines[1][2]) < 1e-4
    out = "result_custom_loop"
    assert sorted(os.listdir(out)) == ["mlp.iterator", "mlp.model", "mlp.state"]

    result = module.main(["--epoch", "4", *TINY, "--resume", out])
    text = capsys.readouterr().out
    assert f"Resumed from {out} at epoch 2" in text
    assert [e for e, _, _ in _epoch_lines(text)] == [3, 4]
    assert result["epoch"] == 4
    assert result["loss"] < lines[0][1]
    assert result["val_accuracy"] > 0.5

    # Its model file is what predict_mnist.py reads.
    predict = load_example("mnist/predict_mnist.py")
    predict.main([f"{out}/mlp.model", "--unit", "32"])


def test_custom_loop_resume_needs_the_saved_files(load_example, capsys, tmp_path):
    module = load_example("mnist/train_mnist_custom_loop.py")
    with pytest.raises(SystemExit):
        module.main(["--resume", str(tmp_path)])
    assert "has no mlp.model" in capsys.readouterr().err


# -------------------------------------------- data- and model-parallel scripts


def test_data_parallel(load_example, read_log):
    module = load_example("mnist/train_mnist_data_parallel.py")
    result = module.main(["--epoch", "3", *TINY])
    out = "result_data_parallel"
    assert {"log", "cg.dot", "snapshot_iter_30"} <= set(os.listdir(out))
    log = read_log(out)
    assert [e["epoch"] for e in log] == [1, 2, 3]
    assert "second/loss" in log[0]  # the copy on the second device reports
    losses = _losses(log)
    assert losses[-1] < losses[0]
    assert result["validation/main/accuracy"] > 0.5

    result = module.main(["--epoch", "4", *TINY, "--resume", f"{out}/snapshot_iter_30"])
    assert [e["epoch"] for e in read_log(out)] == [1, 2, 3, 4]


def test_data_parallel_needs_two_devices(load_example, capsys):
    module = load_example("mnist/train_mnist_data_parallel.py")
    with pytest.raises(SystemExit):
        module.main(["--devices", "@numpy"])
    assert "--devices needs two devices" in capsys.readouterr().err


def test_model_parallel(load_example, read_log):
    module = load_example("mnist/train_mnist_model_parallel.py")
    result = module.main(["--epoch", "3", *TINY])
    out = "result_model_parallel"
    assert {"log", "cg.dot", "snapshot_iter_30"} <= set(os.listdir(out))
    with open(f"{out}/cg.dot") as f:
        assert "Copy" in f.read()  # the halves are joined by F.copy
    losses = _losses(read_log(out))
    assert losses[-1] < losses[0]
    assert result["validation/main/accuracy"] > 0.2  # chance is 0.1

    module.main(["--epoch", "4", *TINY, "--resume", f"{out}/snapshot_iter_30"])
    assert [e["epoch"] for e in read_log(out)] == [1, 2, 3, 4]


# ------------------------------------------------------------ real data


@pytest.mark.slow
@pytest.mark.skipif(
    not os.path.isdir(FASHION_MNIST_DIR),
    reason=f"Debian's dataset-fashion-mnist is not installed ({FASHION_MNIST_DIR})",
)
def test_real_fashion_mnist_one_epoch(load_example, monkeypatch):
    monkeypatch.setattr(chainer.datasets, "get_fashion_mnist", REAL_GET_FASHION_MNIST)
    module = load_example("mnist/train_mnist.py")
    result = module.main(["--epoch", "1", "--unit", "100", "--noplot"])
    assert result["validation/main/accuracy"] > 0.75
