"""Command-line errors of the example scripts are usage errors, not tracebacks.

Counts (``--epoch``, ``--batchsize``) below 1 and a ``--resume`` file that
does not exist are rejected before any data is loaded: the tests make
``chainer.get_device`` (called right after parsing) fail, so a value the
checks let through fails the test at once. A ``--resume`` that is not a
trainer snapshot (a directory, a file that is no NPZ archive, a model file)
is reported by ``load_npz`` itself, and the scripts turn its error into a
usage error; those tests run each script on tiny data up to ``trainer.run``,
which they make fail.
"""

import os
import pathlib
import re
import subprocess

import numpy
import pytest

import chainer
from chainer import training

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

# Every script that trains, with the name of its epoch-count option.
TRAINING_SCRIPTS = [
    ("demo_core.py", "--epochs"),
    ("mnist/train_mnist.py", "--epoch"),
    ("mnist/train_mnist_custom_loop.py", "--epoch"),
    ("mnist/train_mnist_data_parallel.py", "--epoch"),
    ("mnist/train_mnist_model_parallel.py", "--epoch"),
    ("mnist/train_mnist_multi_node.py", "--epoch"),
    ("convnet/train_convnet.py", "--epoch"),
    ("dcgan/train_dcgan.py", "--epoch"),
    ("glance/glance.py", "--epoch"),
    ("ptb/train_ptb.py", "--epoch"),
    ("seq2seq/seq2seq.py", "--epoch"),
    ("vae/train_vae.py", "--epoch"),
    ("word2vec/train_word2vec.py", "--epoch"),
]
# The scripts whose --resume takes a trainer snapshot, with the options of a
# tiny run (on the fake data of the resume_error fixture).
SNAPSHOT_SCRIPTS = {
    "mnist/train_mnist.py": ["--unit", "8"],
    "mnist/train_mnist_data_parallel.py": ["--unit", "8"],
    "mnist/train_mnist_model_parallel.py": ["--unit", "8"],
    "convnet/train_convnet.py": ["--batchsize", "10"],
    "dcgan/train_dcgan.py": ["--ch", "16", "--batchsize", "10", "--train-size", "0"],
    "glance/glance.py": ["--data", "mushrooms.csv", "--unit", "8"],
    "ptb/train_ptb.py": ["--test", "--dataset", "pydoc", "--vocab", "30"],
    "seq2seq/seq2seq.py": ["--train-size=64", "--unit=8", "--layer=1"],
    "vae/train_vae.py": ["--unit", "8", "--dim-z", "2"],
    "word2vec/train_word2vec.py": ["--test", "--dataset", "pydoc", "--vocab", "60"],
}
MODEL_FILE_ERROR = (
    "the file holds no 'updater/' entries (its entries start with 'W', 'b'); it "
    "was saved from another object, e.g. a model written by snapshot_object "
    "rather than a trainer snapshot written by extensions.snapshot()"
)


def _not_reached(*args, **kwargs):
    raise AssertionError("the argument checks let a bad value through")


def _exit_with_usage_error(module, args, capsys):
    with pytest.raises(SystemExit) as e:
        module.main(list(args))
    err = capsys.readouterr().err
    assert e.value.code == 2, err
    assert "usage:" in err
    assert "Traceback" not in err
    return err


@pytest.fixture
def usage_error(load_example, monkeypatch, capsys):
    """``usage_error(script, *args)``: the stderr of a run that must exit 2."""

    def run(script, *args):
        module = load_example(script)
        monkeypatch.setattr(chainer, "get_device", _not_reached)
        if hasattr(module, "create_communicator"):  # the MPI script
            monkeypatch.setattr(module, "create_communicator", _not_reached)
        return _exit_with_usage_error(module, args, capsys)

    return run


def _fake_images(n, shape, withlabel):
    x = numpy.random.RandomState(0).uniform(0, 1, (n, *shape)).astype("f")
    if not withlabel:
        return x
    return chainer.datasets.TupleDataset(x, numpy.arange(n, dtype="i") % 10)


def _fake_getter(sizes):
    # sizes: the image shape for each ndim the getter is asked for.
    def get(withlabel=True, ndim=1, **kwargs):
        shape = sizes[ndim]
        return _fake_images(40, shape, withlabel), _fake_images(20, shape, withlabel)

    return get


def _write_mushrooms(path, header, n=60):
    rng = numpy.random.RandomState(0)
    lines = [header]
    for _ in range(n):
        lines.append(",".join([rng.choice(list("ep")), *rng.choice(list("abc"), 22)]))
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def resume_error(load_example, monkeypatch, capsys, tmp_path):
    """``resume_error(script, path)``: stderr of a tiny run given ``--resume path``.

    The run must exit 2 with a usage error before training starts.
    """
    mnist = _fake_getter({1: (784,), 3: (1, 28, 28)})
    monkeypatch.setattr(chainer.datasets, "get_mnist", mnist)
    monkeypatch.setattr(chainer.datasets, "get_fashion_mnist", mnist)
    cifar = _fake_getter({1: (3072,), 3: (3, 32, 32)})
    monkeypatch.setattr(chainer.datasets, "get_cifar10", cifar)
    monkeypatch.setattr(training.Trainer, "run", _not_reached)

    def run(script, path):
        module = load_example(script)
        if script.startswith("glance/"):
            _write_mushrooms(tmp_path / "mushrooms.csv", module.HEADER)
        args = [*SNAPSHOT_SCRIPTS[script], "--resume", str(path)]
        return _exit_with_usage_error(module, args, capsys)

    return run


def _save_model(path):
    # What snapshot_object(L.Linear(3, 2), ...) writes: parameters only.
    with open(path, "wb") as f:
        numpy.savez_compressed(f, W=numpy.zeros((2, 3), "f"), b=numpy.zeros(2, "f"))


def _ids(params):
    return [p if isinstance(p, str) else p[0] for p in params]


# ------------------------------------------------------------------ counts


@pytest.mark.parametrize("value", ["0", "-3"])
@pytest.mark.parametrize("count", ["epoch", "batchsize"])
@pytest.mark.parametrize(
    ("script", "epoch_option"), TRAINING_SCRIPTS, ids=_ids(TRAINING_SCRIPTS)
)
def test_counts_below_one_are_usage_errors(
    usage_error, script, epoch_option, count, value
):
    option = epoch_option if count == "epoch" else "--batchsize"
    err = usage_error(script, f"{option}={value}")
    assert re.search(
        rf"argument {option}\b.*: must be an integer >= 1, got '{value}'", err
    )


def test_a_count_that_is_no_integer(usage_error):
    err = usage_error("mnist/train_mnist.py", "--batchsize", "ten")
    assert "argument --batchsize/-b: must be an integer >= 1, got 'ten'" in err


def test_a_count_may_be_written_with_spaces(load_example):
    module = load_example("mnist/train_mnist.py")
    assert module.positive_int(" 12") == 12


@pytest.mark.parametrize(
    ("script", "args"),
    [
        ("demo_core.py", ["--batchsize", "0"]),
        ("mnist/train_mnist.py", ["--epoch", "0"]),
    ],
)
def test_no_traceback_from_the_command_line(run_script, script, args):
    done = run_script(script, *args, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"error: argument {args[0]}" in done.stderr


# ------------------------------------------------------------------ --resume


@pytest.mark.parametrize("script", SNAPSHOT_SCRIPTS)
def test_resume_from_a_directory(resume_error, tmp_path, script):
    runs = tmp_path / "runs"
    runs.mkdir()
    err = resume_error(script, runs)
    assert f"--resume: '{runs}' is a directory; load_npz reads one NPZ file" in err


@pytest.mark.parametrize("script", SNAPSHOT_SCRIPTS)
def test_resume_from_a_model_file(resume_error, tmp_path, script):
    path = tmp_path / "model_iter_600"
    _save_model(path)
    err = resume_error(script, path)
    assert re.search(r"--resume: 'updater/[^']+' is not found in ", err)
    assert f"is not found in '{path}': {MODEL_FILE_ERROR}" in err


def test_resume_from_a_directory_names_its_newest_snapshot(resume_error, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("snapshot_iter_600", "snapshot_iter_1200", "model_iter_1800"):
        (runs / name).write_bytes(b"")
    err = resume_error("mnist/train_mnist.py", runs)
    newest = runs / "snapshot_iter_1200"
    assert f"(a trainer snapshot such as {newest}, the newest there)" in err


@pytest.mark.parametrize("script", SNAPSHOT_SCRIPTS)
def test_resume_from_a_missing_file(usage_error, tmp_path, script):
    # Said before the data is loaded (usage_error fails get_device).
    path = tmp_path / "snapshot_iter_600"
    err = usage_error(script, "--resume", str(path))
    assert f"--resume: no such file: {path}" in err


def test_resume_from_a_file_that_is_no_npz(resume_error, tmp_path):
    path = tmp_path / "log"
    path.write_text("[]")
    err = resume_error("mnist/train_mnist.py", path)
    assert f"--resume: '{path}' is not a readable NPZ file: it is not a zip" in err


def test_resume_from_an_empty_file(resume_error, tmp_path):
    # What a run killed while it wrote its first snapshot can leave.
    path = tmp_path / "snapshot_iter_600"
    path.write_bytes(b"")
    err = resume_error("vae/train_vae.py", path)
    assert f"--resume: '{path}' is not a readable NPZ file: it is empty" in err


def test_examples_carry_no_snapshot_checker():
    # The checks live in load_npz; the scripts only report its errors.
    for path in EXAMPLES.rglob("*.py"):
        text = path.read_text()
        assert "zipfile" not in text, path
        assert "check_trainer_snapshot" not in text, path


def test_custom_loop_resume_from_a_file(usage_error, tmp_path):
    path = tmp_path / "mlp.model"
    _save_model(path)
    err = usage_error("mnist/train_mnist_custom_loop.py", "--resume", str(path))
    assert (
        "--resume expects the --out directory of a previous run of this script "
        f"(e.g. result_custom_loop); got a file: {path}"
    ) in err


def test_multi_node_resume_from_a_file(usage_error, tmp_path):
    path = tmp_path / "snapshot_iter_600"
    path.write_bytes(b"")
    err = usage_error("mnist/train_mnist_multi_node.py", "--resume", str(path))
    assert "--resume expects the --out directory of an interrupted run" in err
    assert f"got a file: {path}" in err


# ------------------------------------------------------------------ outputs


def _out_defaults():
    pattern = re.compile(r'"--out",\s*"-o",\s*default="([^"]+)"')
    found = set()
    for path in EXAMPLES.rglob("*.py"):
        found.update(pattern.findall(path.read_text()))
    return sorted(found)


def test_every_example_writes_to_a_result_directory():
    assert _out_defaults() == [
        "result",
        "result_custom_loop",
        "result_data_parallel",
        "result_model_parallel",
        "result_multi_node",
    ]


def _git(*args):
    root = EXAMPLES.parent
    return subprocess.run(
        ["git", "-C", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("out", _out_defaults())
def test_example_outputs_are_ignored_by_git(out):
    # Where a user runs the examples from: the repository root or the
    # example's directory.
    for where in ("", "examples/mnist/", "examples/glance/"):
        path = f"{where}{out}/snapshot_iter_600"
        done = _git("check-ignore", "--no-index", "-q", path)
        assert done.returncode == 0, f"{path} is not ignored: {done.stderr}"


def test_no_tracked_file_is_ignored():
    done = _git("ls-files", "--cached", "--ignored", "--exclude-standard")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


def test_snapshot_names_follow_one_scheme():
    # Trainer snapshots: extensions.snapshot()'s default name; model
    # snapshots: <model>_iter_<iteration>, without an extension.
    names = set()
    for path in EXAMPLES.rglob("*.py"):
        names.update(re.findall(r'"([^"]*\{\.updater\.[^"]*)"', path.read_text()))
    assert len(names) >= 4  # snapshot, model, gen and dis
    for name in names:
        assert re.fullmatch(r"[a-z]+_iter_\{\.updater\.iteration\}", name), name


def test_docs_use_the_snapshot_names():
    docs = pathlib.Path(EXAMPLES.parent, "docs", "examples")
    for path in [*docs.glob("*.md"), *EXAMPLES.rglob("*.py")]:
        text = path.read_text()
        for old in ("snapshot_epoch", "model_epoch", "vae_epoch", "_iter_<N>.npz"):
            assert old not in text, f"{os.path.relpath(path)} mentions {old}"
