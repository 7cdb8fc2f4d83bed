"""Word-level corpora for the language examples: PTB, or Python's help text.

:func:`load` returns a corpus in the form ``chainer.datasets.get_ptb_words``
gives it: three long ``int32`` arrays of word ids (train, validation, test)
with ``<eos>`` after every sentence, and the vocabulary as a dict of words to
ids. Two corpora are offered:

- ``ptb``: the Penn Treebank from ``chainer.datasets.get_ptb_words()``, which
  downloads it on first use.
- ``pydoc``: the help text of Python itself (``pydoc_data.topics``, the pages
  ``help('for')`` shows), which every Python installation has. It is
  lowercased and cut into words; numbers become ``N`` as in PTB; the most
  frequent words of the training part form the vocabulary and the rest
  become ``<unk>``. Every tenth paragraph goes to the validation part and the
  one after it to the test part, so the split is the same on every run
  (the text itself differs a little between Python versions).
- ``auto``: ``ptb`` when its files are already in the dataset root (nothing is
  downloaded), otherwise ``pydoc``.

This file is the same in ``examples/ptb`` and ``examples/word2vec``, so that
each example directory works on its own.
"""

import collections
import os
import re

import numpy as np

import chainer
from chainer.dataset import download

EOS = "<eos>"
UNK = "<unk>"
CHOICES = ("auto", "ptb", "pydoc")

Corpus = collections.namedtuple("Corpus", ["name", "train", "valid", "test", "vocab"])

_PTB_DIR = "pfnet/chainer/ptb"
# Either Chainer's cache files or the raw text files put there by hand.
_PTB_FILE_SETS = (
    ("vocab.txt", "train.npz", "valid.npz", "test.npz"),
    ("ptb.train.txt", "ptb.valid.txt", "ptb.test.txt"),
)
_WORD = re.compile(r"[a-z0-9_]+(?:'[a-z]+)?")
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


def load(name="auto", vocab_size=2000):
    """Loads a corpus, or exits with a message saying what went wrong.

    Args:
        name (str): ``'auto'``, ``'ptb'`` or ``'pydoc'``.
        vocab_size (int): Number of words in the vocabulary of the ``pydoc``
            corpus, ``<eos>`` and ``<unk>`` included (PTB has its own).

    Returns:
        Corpus: ``(name, train, valid, test, vocab)`` where ``name`` is the
        corpus actually loaded.
    """
    if name == "auto":
        name = "ptb" if ptb_is_available() else "pydoc"
        if name == "pydoc":
            directory = download.get_dataset_directory(_PTB_DIR, create_directory=False)
            print(
                f"Note: the Penn Treebank is not in {directory}, so Python's help "
                "text (pydoc_data.topics) is used. Run with --dataset ptb to "
                "download the Penn Treebank."
            )
    if name == "ptb":
        try:
            train, valid, test = chainer.datasets.get_ptb_words()
            vocab = chainer.datasets.get_ptb_words_vocabulary()
        except (OSError, ValueError) as e:
            raise SystemExit(
                f"error: cannot load the Penn Treebank:\n{e}\n"
                "Run with --dataset pydoc to use Python's help text instead."
            ) from None
        return Corpus("ptb", train, valid, test, vocab)
    if name == "pydoc":
        return load_pydoc(vocab_size)
    raise SystemExit(f"error: unknown corpus {name!r}; choose from {CHOICES}")


def ptb_is_available():
    """Tells whether the Penn Treebank can be loaded without a download.

    Returns:
        bool: ``True`` if its files are in the dataset root.
    """
    directory = download.get_dataset_directory(_PTB_DIR, create_directory=False)
    return any(
        all(os.path.isfile(os.path.join(directory, name)) for name in names)
        for names in _PTB_FILE_SETS
    )


def load_pydoc(vocab_size=2000):
    """Builds the corpus of Python's help text.

    Args:
        vocab_size (int): Number of words in the vocabulary (at least 2):
            the most frequent words of the training part, then ``<unk>``.

    Returns:
        Corpus: The ``pydoc`` corpus.
    """
    if vocab_size < 2:
        raise SystemExit("error: the vocabulary needs at least 2 words")
    parts = {"train": [], "valid": [], "test": []}
    for i, paragraph in enumerate(_pydoc_paragraphs()):
        part = {8: "valid", 9: "test"}.get(i % 10, "train")
        for sentence in paragraph:
            parts[part] += sentence
            parts[part].append(EOS)

    # Ties keep the order of first appearance, so the ids never change.
    counts = collections.Counter(parts["train"])
    words = [word for word, _ in counts.most_common(vocab_size - 1)]
    vocab = {word: i for i, word in enumerate(words)}
    vocab[UNK] = len(vocab)

    def to_ids(words):
        ids = [vocab.get(word, vocab[UNK]) for word in words]
        return np.array(ids, dtype=np.int32)

    train, valid, test = (to_ids(parts[key]) for key in ("train", "valid", "test"))
    return Corpus("pydoc", train, valid, test, vocab)


def _pydoc_paragraphs():
    # Yields each paragraph of the help text as a list of sentences, each a
    # list of words.
    from pydoc_data import topics

    for key in sorted(topics.topics):
        text = topics.topics[key].lower().replace("\u2019", "'")
        for block in _PARAGRAPH_BREAK.split(text):
            sentences = []
            for line in _SENTENCE_END.split(block):
                words = ["N" if w.isdigit() else w for w in _WORD.findall(line)]
                if words:
                    sentences.append(words)
            if sentences:
                yield sentences
