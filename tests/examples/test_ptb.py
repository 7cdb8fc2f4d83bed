"""Tests of examples/ptb: the LSTM language model, gentxt.py and the corpus."""

import json
import math
import pathlib

import numpy as np
import pytest

import chainer

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

# A tiny model on the first 100 words of each split: 28 words per update, so
# epochs end in the middle of an update (truncated BPTT).
TINY = [
    "--test",
    "--dataset",
    "pydoc",
    "--vocab",
    "30",
    "--unit",
    "16",
    "--batchsize",
    "4",
    "--bproplen",
    "7",
]


def _train(load_example, *args):
    train_ptb = load_example("ptb/train_ptb.py")
    return train_ptb.main([*TINY, *args])


def test_help(run_script):
    result = run_script("ptb/train_ptb.py", "--help")
    assert result.returncode == 0, result.stderr
    assert "--bproplen" in result.stdout
    assert "--dataset {auto,ptb,pydoc}" in result.stdout


def test_gentxt_help(load_example, capsys):
    gentxt = load_example("ptb/gentxt.py")
    with pytest.raises(SystemExit) as e:
        gentxt.main(["--help"])
    assert e.value.code == 0
    assert "--primetext" in capsys.readouterr().out


def test_corpus_copies_are_identical():
    ptb = (EXAMPLES / "ptb" / "corpus.py").read_bytes()
    assert ptb == (EXAMPLES / "word2vec" / "corpus.py").read_bytes()


def test_pydoc_corpus(load_example):
    corpus = load_example("ptb/corpus.py")
    data = corpus.load_pydoc(vocab_size=300)
    assert data.name == "pydoc"
    assert len(data.vocab) == 300
    assert {"<eos>", "<unk>", "the", "N"} <= set(data.vocab)
    assert sorted(data.vocab.values()) == list(range(300))
    for split in (data.train, data.valid, data.test):
        assert split.dtype == np.int32
        assert split.ndim == 1
        assert split.min() >= 0
        assert split.max() < 300
        assert split[-1] == data.vocab["<eos>"]
    # Roughly 80/10/10, and the same on every call.
    assert len(data.train) > 6 * len(data.valid) > 0
    again = corpus.load_pydoc(vocab_size=300)
    assert again.vocab == data.vocab
    np.testing.assert_array_equal(again.test, data.test)


def test_auto_prefers_ptb_files(load_example, dataset_root, capsys):
    corpus = load_example("ptb/corpus.py")
    assert corpus.load("auto", 100).name == "pydoc"
    assert "Python's help text" in capsys.readouterr().out
    ptb_dir = dataset_root / "pfnet" / "chainer" / "ptb"
    ptb_dir.mkdir(parents=True)
    for split in ("train", "valid", "test"):
        text = "the cat sat on the mat\na dog ran\n" * 5
        (ptb_dir / f"ptb.{split}.txt").write_text(text)
    data = corpus.load("auto", 100)
    assert data.name == "ptb"
    assert len(data.vocab) == 9  # eight words and <eos>
    assert len(data.train) == 55  # (6 + 1 + 3 + 1) words, five times


def test_missing_ptb_exits_with_a_message(load_example, monkeypatch):
    def missing():
        raise OSError("Penn Treebank: cannot find or download ptb.train.txt")

    monkeypatch.setattr(chainer.datasets, "get_ptb_words", missing)
    with pytest.raises(SystemExit, match="cannot load the Penn Treebank"):
        _train(load_example, "--dataset", "ptb")


def test_train_writes_outputs_and_learns(load_example, read_log, capsys):
    result = _train(load_example, "--epoch", "8")
    out = capsys.readouterr().out
    assert "test perplexity" in out
    assert math.isfinite(result["test_perplexity"])

    log = read_log("result")
    # 28 words per update over 100 words: epoch 8 is crossed at update 29,
    # in the middle of its reads, and the training stops there.
    assert log[-1]["iteration"] == 29
    assert log[-1]["epoch"] == 8
    first = np.mean([entry["perplexity"] for entry in log[:5]])
    last = np.mean([entry["perplexity"] for entry in log[-5:]])
    assert last < 0.75 * first
    assert any("val_perplexity" in entry for entry in log)

    result_dir = pathlib.Path("result")
    assert (result_dir / "model.npz").is_file()
    assert (result_dir / "snapshot_iter_29").is_file()
    assert (result_dir / "model_iter_29").is_file()
    info = json.loads((result_dir / "model.vocab.json").read_text())
    assert info["unit"] == 16
    assert len(info["words"]) == 30


def test_resume_continues_the_run(load_example, read_log):
    _train(load_example, "--epoch", "2", "--out", "first")
    assert read_log("first")[-1]["iteration"] == 8
    _train(
        load_example,
        "--epoch",
        "4",
        "--out",
        "first",
        "--resume",
        "first/snapshot_iter_8",
    )
    iterations = [entry["iteration"] for entry in read_log("first")]
    # The log goes on from the snapshot; only the older snapshot was removed.
    assert iterations == list(range(1, 16))
    assert not pathlib.Path("first/snapshot_iter_8").exists()
    assert pathlib.Path("first/snapshot_iter_15").is_file()


def test_bad_arguments(load_example, capsys):
    with pytest.raises(SystemExit) as e:
        _train(load_example, "--resume", "missing/snapshot")
    assert e.value.code == 2
    assert "no such file: missing/snapshot" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _train(load_example, "--device", "@nonsense")
    assert "--device: unknown device backend" in capsys.readouterr().err


def test_gentxt(load_example, capsys):
    _train(load_example, "--epoch", "2")
    gentxt = load_example("ptb/gentxt.py")
    capsys.readouterr()
    words = gentxt.main(["-p", "the", "--length", "12", "--seed", "3"])
    text = capsys.readouterr().out
    assert len(words) == 12
    assert text.startswith("the")
    vocab = json.loads(pathlib.Path("result/model.vocab.json").read_text())["words"]
    assert set(words) <= set(vocab)
    assert gentxt.main(["-p", "the", "--length", "12", "--seed", "3"]) == words
    greedy = gentxt.main(["-p", "the a", "--length", "5", "--no-sample"])
    assert greedy == gentxt.main(["-p", "the a", "--length", "5", "--no-sample"])


def test_gentxt_bad_input(load_example, capsys):
    gentxt = load_example("ptb/gentxt.py")
    with pytest.raises(SystemExit):
        gentxt.main(["-m", "missing.npz"])
    assert "no such file: missing.npz" in capsys.readouterr().err
    _train(load_example, "--epoch", "1")
    with pytest.raises(SystemExit):
        gentxt.main(["-p", "the zyzzyva"])
    assert "not in the vocabulary of the model: zyzzyva" in capsys.readouterr().err


def test_format_text(load_example):
    gentxt = load_example("ptb/gentxt.py")
    text = gentxt.format_text(["a", "b", "<eos>", "c", "<eos>", "d"])
    assert text == "a b.\nc.\nd"
