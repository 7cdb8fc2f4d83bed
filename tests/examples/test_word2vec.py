"""Tests of examples/word2vec: training every model and output type, search."""

import io
import pathlib

import numpy as np
import pytest

# The first 100 words of the pydoc corpus.
TINY = ["--test", "--dataset", "pydoc", "--vocab", "60", "--unit", "8"]


def _train(load_example, *args):
    train_word2vec = load_example("word2vec/train_word2vec.py")
    return train_word2vec.main([*TINY, *args])


def _train_on_a_cycle(load_example, monkeypatch, *args):
    # Twelve words repeated in a cycle: each word's neighbours are fixed, so
    # the loss falls fast. With --window 1 every batch has the same number of
    # (centre, context) pairs, so the summed losses compare.
    train_word2vec = load_example("word2vec/train_word2vec.py")
    corpus = train_word2vec.corpus
    vocab = {f"w{i}": i for i in range(12)}
    cycle = np.tile(np.arange(12, dtype=np.int32), 40)

    def load(name, vocab_size):
        return corpus.Corpus("cycle", cycle, cycle[:120], cycle[:120], vocab)

    monkeypatch.setattr(corpus, "load", load)
    argv = ["--unit", "8", "--window", "1", "--batchsize", "10", *args]
    return train_word2vec.main(argv)


def test_help(run_script):
    result = run_script("word2vec/train_word2vec.py", "--help")
    assert result.returncode == 0, result.stderr
    assert "--out-type {hsm,ns,original}" in result.stdout
    assert "--model {skipgram,cbow}" in result.stdout


def test_search_help(load_example, capsys):
    search = load_example("word2vec/search.py")
    with pytest.raises(SystemExit) as e:
        search.main(["--help"])
    assert e.value.code == 0
    assert "--query" in capsys.readouterr().out


@pytest.mark.parametrize("model", ["skipgram", "cbow"])
@pytest.mark.parametrize("out_type", ["hsm", "ns", "original"])
def test_train_learns_and_saves(load_example, monkeypatch, read_log, model, out_type):
    argv = ["--model", model, "--out-type", out_type, "--epoch", "10"]
    result = _train_on_a_cycle(load_example, monkeypatch, *argv)
    log = read_log("result")
    assert [entry["epoch"] for entry in log] == list(range(1, 11))
    assert log[-1]["main/loss"] < 0.8 * log[0]["main/loss"]
    assert log[-1]["validation/main/loss"] < 0.8 * log[0]["validation/main/loss"]
    # 48 iterations per epoch, a snapshot every 5 epochs.
    assert pathlib.Path("result/snapshot_iter_240").is_file()
    assert pathlib.Path("result/snapshot_iter_480").is_file()

    path = pathlib.Path(result["model_path"])
    assert path == pathlib.Path("result/word2vec.model")
    lines = path.read_text().splitlines()
    assert lines[0] == "12 8"
    assert len(lines) == 13
    word, *vector = lines[1].split()
    assert word == "w0"
    assert len(vector) == 8


def test_resume_continues_the_run(load_example, read_log):
    common = ["-b", "25", "--snapshot-interval", "1"]
    _train(load_example, *common, "--epoch", "2")
    _train(load_example, *common, "--epoch", "4", "--resume", "result/snapshot_iter_8")
    log = read_log("result")
    assert [entry["epoch"] for entry in log] == [1, 2, 3, 4]
    assert [entry["iteration"] for entry in log] == [4, 8, 12, 16]


def test_bad_input(load_example, capsys):
    with pytest.raises(SystemExit) as e:
        _train(load_example, "--resume", "missing")
    assert e.value.code == 2
    assert "no such file: missing" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _train(load_example, "--window", "60")
    assert "too short for the window" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _train(load_example, "--device", "@nonsense")
    assert "--device: unknown device backend" in capsys.readouterr().err


def _write_embeddings(path):
    vectors = {
        "cat": [1.0, 0.1, 0.0],
        "dog": [0.9, 0.2, 0.0],
        "mouse": [0.6, 0.5, 0.1],
        "car": [0.0, 0.1, 1.0],
        "bus": [0.1, 0.0, 0.9],
        "zero": [0.0, 0.0, 0.0],
    }
    lines = ["6 3"] + [f"{w} " + " ".join(map(str, v)) for w, v in vectors.items()]
    path.write_text("\n".join(lines) + "\n")


def test_search_finds_the_nearest_words(load_example, capsys):
    search = load_example("word2vec/search.py")
    _write_embeddings(pathlib.Path("vectors.txt"))
    results = search.main(["-m", "vectors.txt", "-q", "cat", "-q", "car", "-n", "2"])
    assert [w for w, _ in results["cat"]] == ["dog", "mouse"]
    assert [w for w, _ in results["car"]] == ["bus", "mouse"]
    assert results["cat"][0][1] == pytest.approx(
        (0.9 + 0.02) / np.sqrt(1.01 * 0.85), rel=1e-5
    )
    out = capsys.readouterr().out
    assert "query: cat\ndog: 0.99" in out


def test_search_reads_stdin(load_example, monkeypatch, capsys):
    search = load_example("word2vec/search.py")
    _write_embeddings(pathlib.Path("vectors.txt"))
    monkeypatch.setattr("sys.stdin", io.StringIO("bus\nunknown\n"))
    results = search.main(["-m", "vectors.txt"])
    assert results["bus"][0][0] == "car"
    assert results["unknown"] == []
    assert '"unknown" is not found' in capsys.readouterr().out


def test_search_on_a_trained_model(load_example, capsys):
    _train(load_example, "--epoch", "1")
    search = load_example("word2vec/search.py")
    results = search.main(["-q", "the"])
    assert len(results["the"]) == 5
    assert all(-1.0 <= s <= 1.0 for _, s in results["the"])


def test_search_bad_input(load_example, capsys):
    search = load_example("word2vec/search.py")
    with pytest.raises(SystemExit):
        search.main(["-m", "missing.model"])
    assert "no such file: missing.model" in capsys.readouterr().err
    pathlib.Path("bad.model").write_text("2 3\na 1 2 3\n")
    with pytest.raises(SystemExit):
        search.main(["-m", "bad.model", "-q", "a"])
    assert "expected 2 words, found 1" in capsys.readouterr().err
