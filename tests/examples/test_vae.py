"""Tests of examples/vae/train_vae.py on tiny synthetic images."""

import os
import sys

import numpy
import pytest

import chainer

SMALL = ["--unit", "32", "--dim-z", "4", "--batchsize", "50"]


def fake_images(withlabel=False, n_train=200, n_test=100):
    """Noisy copies of four 28x28 prototypes, as ``(N, 784)`` float32."""
    assert not withlabel
    rng = numpy.random.default_rng(0)
    prototypes = (rng.random((4, 784)) < 0.3).astype(numpy.float32)

    def make(n):
        images = prototypes[rng.integers(0, 4, n)]
        noise = rng.random((n, 784)) < 0.05
        return numpy.abs(images - noise).astype(numpy.float32)

    return make(n_train), make(n_test)


@pytest.fixture
def vae(load_example, monkeypatch):
    monkeypatch.setattr(chainer.datasets, "get_fashion_mnist", fake_images)
    return load_example("vae/train_vae.py")


def test_trains_and_writes_images(vae, read_log, tmp_path, capsys):
    result = vae.main([*SMALL, "--epoch", "3", "--out", "out"])

    out = tmp_path / "out"
    names = ["train_reconstructed.png", "test_reconstructed.png", "sampled.png"]
    for name in [*names, "log", "snapshot_iter_12", "model_iter_12"]:
        assert (out / name).is_file(), name
    assert result["images"] == [os.path.join("out", name) for name in names]
    log = read_log(out)
    assert [e["epoch"] for e in log] == [1, 2, 3]
    for key in ("main/loss", "main/rec_loss", "validation/main/loss"):
        assert log[-1][key] < log[0][key], key
    assert log[-1]["main/kl"] > 0
    printed = capsys.readouterr().out
    assert "# dataset: fashion-mnist (200 train, 100 test)" in printed
    assert "main/rec_loss" in printed

    # The saved model loads into a fresh VAE of the same size.
    fresh = vae.net.VAE(784, 32, 4)
    chainer.serializers.load_npz(str(out / "model_iter_12"), fresh)
    assert fresh.decoder.l2.W.shape == (784, 32)


def test_resume_from_snapshot(vae, read_log, tmp_path, monkeypatch):
    # --dataset mnist takes its data from get_mnist.
    monkeypatch.setattr(chainer.datasets, "get_mnist", fake_images)
    common = [*SMALL, "--dataset", "mnist", "--beta", "0.5"]
    vae.main([*common, "--epoch", "1", "--out", "a"])
    snapshot = tmp_path / "a" / "snapshot_iter_4"
    assert snapshot.is_file()

    vae.main([*common, "--epoch", "2", "--out", "b", "--resume", str(snapshot)])
    log = read_log(tmp_path / "b")
    assert [e["iteration"] for e in log] == [4, 8]
    assert (tmp_path / "b" / "snapshot_iter_8").is_file()


def test_without_matplotlib_skips_images(vae, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = vae.main([*SMALL, "--epoch", "1", "--out", "out"])
    assert result["images"] == []
    assert not list((tmp_path / "out").glob("*.png"))
    assert "matplotlib is not installed" in capsys.readouterr().out


@pytest.mark.parametrize(
    "error",
    [
        "Fashion-MNIST file train-images-idx3-ubyte.gz not found",
        "not found.\nOn Debian or Ubuntu, `sudo apt-get install dataset-fashion-mnist`",
    ],
)
def test_missing_data_says_how_to_install_it(vae, monkeypatch, error):
    def missing(**kwargs):
        raise OSError(error)

    monkeypatch.setattr(chainer.datasets, "get_fashion_mnist", missing)
    with pytest.raises(SystemExit) as e:
        vae.main([])
    message = str(e.value.code)
    assert message.startswith(f"Could not load fashion-mnist: {error}")
    # The apt command once, whether or not the getter already gave it.
    assert message.count("sudo apt-get install dataset-fashion-mnist") == 1


def test_bad_arguments(vae, capsys):
    with pytest.raises(SystemExit):
        vae.main(["--dataset", "cifar"])
    assert "invalid choice: 'cifar'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        vae.main(["--k", "0"])
    assert "argument --k: must be an integer >= 1, got '0'" in capsys.readouterr().err


def test_help(run_script):
    proc = run_script("vae/train_vae.py", "--help")
    assert proc.returncode == 0
    for flag in ("--device", "--epoch", "--batchsize", "--out", "--resume", "--beta"):
        assert flag in proc.stdout
    assert "--dim-z" in proc.stdout
