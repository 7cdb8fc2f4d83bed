"""Tests of examples/glance/glance.py on a small synthetic mushrooms CSV."""

import pathlib

import numpy
import pytest

REAL_DATA = pathlib.Path("/work/shared/data/mushrooms.csv")
HEADER = (
    "class,cap-shape,cap-surface,cap-color,bruises,odor,gill-attachment,"
    "gill-spacing,gill-size,gill-color,stalk-shape,stalk-root,"
    "stalk-surface-above-ring,stalk-surface-below-ring,stalk-color-above-ring,"
    "stalk-color-below-ring,veil-type,veil-color,ring-number,ring-type,"
    "spore-print-color,population,habitat"
)


def write_csv(path, n=1429, header=HEADER, seed=0):
    """Writes mushrooms whose odor decides the class; other columns are noise.

    The default 1429 rows split into 1000 for training (10 iterations of 100
    per epoch) and 429 for validation.
    """
    rng = numpy.random.default_rng(seed)
    lines = [header] if header else []
    for _ in range(n):
        features = list(rng.choice(list("abcdef"), size=22))
        features[4] = rng.choice(list("nalfsy"))  # odor
        label = "e" if features[4] in "nal" else "p"
        lines.append(",".join([label, *features]))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.fixture
def glance(load_example):
    return load_example("glance/glance.py")


def test_trains_and_writes_outputs(glance, read_log, tmp_path, capsys):
    # No --data: the script reads mushrooms.csv in the working directory.
    write_csv(tmp_path / "mushrooms.csv")
    result = glance.main(["--epoch", "3", "--lr", "0.3", "--out", "out"])

    out = tmp_path / "out"
    for name in ("log", "loss.png", "accuracy.png", "cg.dot", "snapshot_iter_30"):
        assert (out / name).is_file(), name
    log = read_log(out)
    assert [e["epoch"] for e in log] == [1, 2, 3]
    assert log[-1]["main/loss"] < log[0]["main/loss"]
    assert log[-1]["validation/main/loss"] < log[0]["validation/main/loss"]
    assert result["validation/main/accuracy"] == log[-1]["validation/main/accuracy"]
    assert result["validation/main/accuracy"] > 0.8
    printed = capsys.readouterr().out
    assert "mushrooms.csv (1429 mushrooms" in printed
    assert "validation/main/accuracy" in printed
    assert "Predicted " in printed
    assert ", Actual " in printed


def test_resume_from_snapshot(glance, read_log, tmp_path):
    data = write_csv(tmp_path / "m.csv")
    glance.main(["--data", data, "--epoch", "1", "--out", "a"])
    snapshot = tmp_path / "a" / "snapshot_iter_10"
    assert snapshot.is_file()

    glance.main(
        ["--data", data, "--epoch", "2", "--out", "b", "--resume", str(snapshot)]
    )
    log = read_log(tmp_path / "b")
    # The resumed trainer keeps the first epoch's log and runs epoch 2.
    assert [e["epoch"] for e in log] == [1, 2]
    assert [e["iteration"] for e in log] == [10, 20]
    assert (tmp_path / "b" / "snapshot_iter_20").is_file()


def test_reads_uci_file_without_header(glance, tmp_path):
    data = write_csv(tmp_path / "agaricus-lepiota.data", n=150, header=None)
    X, Y = glance.load_mushrooms(data)
    assert X.dtype == numpy.float32
    assert Y.dtype == numpy.int32
    assert Y.shape == (150, 1)
    # One-hot: exactly one input set per feature column.
    assert (X.sum(axis=1) == 22).all()
    assert glance.main(["--data", data, "--epoch", "1", "--out", "o"])


def test_missing_default_file_says_where_to_get_it(glance, capsys):
    with pytest.raises(SystemExit) as e:
        glance.main([])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "no mushrooms.csv in the current directory" in err
    assert "https://archive.ics.uci.edu/dataset/73/mushroom" in err
    assert "--data PATH" in err


def test_missing_data_path(glance, capsys):
    with pytest.raises(SystemExit):
        glance.main(["--data", "nowhere/mushrooms.csv"])
    assert "--data nowhere/mushrooms.csv: no such file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("name,size\nfoo,1\n", "the first line is not the mushrooms header"),
        (HEADER + "\ne,x,s\n", "line 2 has 3 fields, expected 23"),
        (HEADER + "\n" + ",".join("q" * 23) + "\n", "line 2: class 'q'"),
        (HEADER + "\n", "the file has no data lines"),
        ("", "the file is empty"),
    ],
)
def test_bad_file_gives_clear_message(glance, tmp_path, capsys, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(SystemExit):
        glance.main(["--data", str(path)])
    err = capsys.readouterr().err
    assert "is not the mushrooms CSV" in err
    assert message in err


def test_help(run_script):
    proc = run_script("glance/glance.py", "--help")
    assert proc.returncode == 0
    for flag in ("--data", "--device", "--epoch", "--batchsize", "--out", "--resume"):
        assert flag in proc.stdout


@pytest.mark.slow
@pytest.mark.skipif(not REAL_DATA.is_file(), reason=f"{REAL_DATA} is absent")
def test_real_data_reaches_97_percent(glance, read_log):
    result = glance.main(["--data", str(REAL_DATA), "--out", "real"])
    assert result["epoch"] == 20
    assert result["validation/main/accuracy"] >= 0.97
    log = read_log("real")
    assert log[-1]["main/loss"] < log[0]["main/loss"] / 3
