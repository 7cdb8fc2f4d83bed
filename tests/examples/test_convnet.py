"""Runs examples/convnet/train_convnet.py on tiny synthetic image sets."""

import pathlib

import numpy
import pytest

import chainer

SCRIPT = "convnet/train_convnet.py"
FASHION_MNIST_DIR = pathlib.Path("/usr/share/datasets/fashion-mnist")


def make_images(n, shape, seed):
    """Labelled images whose class is a bright horizontal band (learnable)."""
    rng = numpy.random.RandomState(seed)
    labels = rng.randint(0, 10, n).astype(numpy.int32)
    x = rng.uniform(0, 0.3, (n, *shape)).astype(numpy.float32)
    rows = shape[1] // 10
    for i, label in enumerate(labels):
        x[i, :, label * rows : (label + 1) * rows] += 0.7
    return chainer.datasets.TupleDataset(x, labels)


@pytest.fixture
def fake_data(monkeypatch):
    """Replaces both dataset getters; returns the list of getter calls."""
    calls = []

    def fashion_mnist(withlabel=True, ndim=1, **kwargs):
        calls.append(("fashion-mnist", ndim))
        return make_images(100, (1, 28, 28), 0), make_images(50, (1, 28, 28), 1)

    def cifar10(withlabel=True, ndim=3, **kwargs):
        calls.append(("cifar10", ndim))
        return make_images(40, (3, 32, 32), 0), make_images(20, (3, 32, 32), 1)

    monkeypatch.setattr(chainer.datasets, "get_fashion_mnist", fashion_mnist)
    monkeypatch.setattr(chainer.datasets, "get_cifar10", cifar10)
    return calls


def test_lenet5_learns_and_writes_outputs(load_example, read_log, fake_data, capsys):
    script = load_example(SCRIPT)
    args = ["--epoch", "4", "--batchsize", "10", "--learnrate", "0.01"]
    result = script.main([*args, "--out", "out"])

    assert fake_data == [("fashion-mnist", 3)]
    log = read_log("out")
    assert [entry["epoch"] for entry in log] == [1, 2, 3, 4]
    assert log[-1]["main/loss"] < log[0]["main/loss"]
    assert log[-1]["validation/main/loss"] < log[0]["validation/main/loss"]
    assert result["validation/main/accuracy"] == log[-1]["validation/main/accuracy"]
    out = pathlib.Path("out")
    for name in ("loss.png", "accuracy.png", "cg.dot", "model.npz"):
        assert (out / name).is_file(), name
    # One trainer snapshot at the end of each epoch, named by its iteration.
    assert sorted(p.name for p in out.glob("snapshot_*")) == sorted(
        f"snapshot_iter_{entry['iteration']}" for entry in log
    )
    printed = capsys.readouterr().out
    assert "# Architecture: lenet5" in printed
    assert "validation/main/accuracy" in printed
    assert "predicted:" in printed

    # The saved model loads into a fresh LeNet5 and predicts probabilities.
    models = load_example("convnet/models.py")
    model = models.LeNet5()
    chainer.serializers.load_npz("out/model.npz", model)
    x = numpy.random.rand(3, 1, 28, 28).astype(numpy.float32)
    probs = models.predict(model, x).array
    assert probs.shape == (3, 10)
    numpy.testing.assert_allclose(probs.sum(axis=1), 1, rtol=1e-5)


def test_resume_continues_from_snapshot(load_example, read_log, fake_data):
    script = load_example(SCRIPT)
    common = ["--batchsize", "20", "--out", "out"]
    script.main([*common, "--epoch", "1"])
    first = read_log("out")
    script.main([*common, "--epoch", "2", "--resume", "out/snapshot_iter_5"])

    log = read_log("out")
    assert [entry["epoch"] for entry in log] == [1, 2]
    assert log[0] == first[0]
    assert log[1]["iteration"] == 10
    assert pathlib.Path("out/snapshot_iter_10").is_file()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("arch", "dataset"),
    [("vgg", "fashion-mnist"), ("resnet", "cifar10"), ("lenet5", "cifar10")],
)
def test_other_archs_and_cifar10(load_example, read_log, fake_data, arch, dataset):
    script = load_example(SCRIPT)
    result = script.main(
        ["--arch", arch, "--dataset", dataset, "--epoch", "1", "-b", "20", "-o", "o"]
    )
    assert fake_data[0][0] == dataset
    assert numpy.isfinite(result["main/loss"])
    assert 0 <= result["validation/main/accuracy"] <= 1
    assert pathlib.Path("o/model.npz").is_file()


def test_train_size_subsamples(load_example, read_log, fake_data):
    script = load_example(SCRIPT)
    script.main(["--train-size", "30", "--batchsize", "10", "--epoch", "1"])
    assert read_log("result")[-1]["iteration"] == 3


def test_missing_data_exits_with_apt_hint(load_example, monkeypatch, capsys):
    def missing(**kwargs):
        raise OSError("Fashion-MNIST: cannot find or download train-images")

    monkeypatch.setattr(chainer.datasets, "get_fashion_mnist", missing)
    script = load_example(SCRIPT)
    with pytest.raises(SystemExit) as e:
        script.main([])
    message = str(e.value.code)
    assert "cannot find or download" in message
    assert "sudo apt-get install dataset-fashion-mnist" in message


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--dataset", "mnist"], "invalid choice: 'mnist'"),
        (["--arch", "alexnet"], "invalid choice: 'alexnet'"),
        (
            ["--train-size", "0"],
            "argument --train-size: must be an integer >= 1, got '0'",
        ),
        (["--device", "@nonsense"], "--device @nonsense"),
        (["--resume", "no/such.npz"], "no such file: no/such.npz"),
    ],
)
def test_bad_arguments_are_reported(load_example, capsys, argv, expected):
    script = load_example(SCRIPT)
    with pytest.raises(SystemExit) as e:
        script.main(argv)
    assert e.value.code == 2
    assert expected in capsys.readouterr().err


def test_help(run_script):
    result = run_script(SCRIPT, "--help")
    assert result.returncode == 0, result.stderr
    for flag in ("--arch", "--dataset", "--device", "--epoch", "--batchsize"):
        assert flag in result.stdout
    for flag in ("--out", "--resume", "--train-size"):
        assert flag in result.stdout


@pytest.mark.slow
@pytest.mark.skipif(
    not FASHION_MNIST_DIR.is_dir(),
    reason="Debian's dataset-fashion-mnist package is not installed",
)
def test_real_fashion_mnist(load_example):
    script = load_example(SCRIPT)
    argv = ["--train-size", "5000", "-b", "20", "-e", "1", "--learnrate", "0.003"]
    result = script.main(argv)
    # About 0.55 on this machine; a sigmoid LeNet5 starts slowly.
    assert result["validation/main/accuracy"] > 0.4
