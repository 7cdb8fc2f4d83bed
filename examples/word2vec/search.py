#!/usr/bin/env python
"""Finds the words nearest to a query word in embeddings from train_word2vec.py.

Words are compared by the cosine of their embedding vectors. Queries come
from ``--query`` (repeatable) or, without it, from standard input, one word
per line (an interactive prompt; end with Ctrl-D).

Run::

    python train_word2vec.py
    python search.py --query class --query true
    python search.py                # then type words at the >> prompt
"""

import argparse
import os

import numpy as np


def load_embeddings(path):
    """Reads embeddings written by ``train_word2vec.py``.

    Args:
        path (str): The text file: a line ``n_vocab n_units``, then one line
            per word, the word followed by its vector.

    Returns:
        tuple: ``(words, W)``: the list of words and a ``(n_vocab, n_units)``
        float32 array of their vectors scaled to unit length.
    """
    with open(path, encoding="utf-8") as f:
        n_vocab, n_units = (int(s) for s in f.readline().split())
        words = []
        W = np.empty((n_vocab, n_units), dtype=np.float32)
        for i, line in enumerate(f):
            word, *vector = line.split()
            words.append(word)
            W[i] = [float(v) for v in vector]
    if len(words) != n_vocab:
        raise ValueError(f"{path}: expected {n_vocab} words, found {len(words)}")
    norm = np.linalg.norm(W, axis=1, keepdims=True)
    W /= np.maximum(norm, 1e-12)
    return words, W


def nearest(query, words, W, n_result=5):
    """Finds the words most similar to a word.

    Args:
        query (str): A word of ``words``.
        words (list of str): The vocabulary.
        W (numpy.ndarray): Unit-length embeddings, one row per word.
        n_result (int): Number of words to return.

    Returns:
        list: ``(word, cosine similarity)`` pairs, most similar first,
        ``query`` itself left out.
    """
    similarity = W.dot(W[words.index(query)])
    result = []
    for i in (-similarity).argsort():
        if words[i] == query or np.isnan(similarity[i]):
            continue
        result.append((words[i], float(similarity[i])))
        if len(result) == n_result:
            break
    return result


def search(query, words, W, n_result):
    """Prints the nearest words of a query, or that it is unknown.

    Args:
        query (str): The word.
        words (list of str): The vocabulary.
        W (numpy.ndarray): Unit-length embeddings.
        n_result (int): Number of words to print.

    Returns:
        list: What :func:`nearest` returns, or ``[]`` for an unknown word.
    """
    if query not in words:
        print(f'"{query}" is not found')
        return []
    print(f"query: {query}")
    result = nearest(query, words, W, n_result)
    for word, similarity in result:
        print(f"{word}: {similarity}")
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Chainer example: nearest words in word2vec embeddings"
    )
    parser.add_argument(
        "--model",
        "-m",
        default="result/word2vec.model",
        help="Embeddings file written by train_word2vec.py",
    )
    parser.add_argument(
        "--query",
        "-q",
        action="append",
        help="A word to search for (repeatable); without it, words are read from stdin",
    )
    parser.add_argument(
        "--count", "-n", type=int, default=5, help="Number of nearest words to show"
    )
    args = parser.parse_args(argv)
    if not os.path.isfile(args.model):
        parser.error(f"no such file: {args.model} (train with train_word2vec.py first)")
    try:
        words, W = load_embeddings(args.model)
    except (ValueError, IndexError, UnicodeDecodeError) as e:
        parser.error(f"cannot read {args.model}: {e}")

    if args.query:
        return {q: search(q, words, W, args.count) for q in args.query}

    results = {}
    try:
        while True:
            query = input(">> ").strip()
            if query:
                results[query] = search(query, words, W, args.count)
    except (EOFError, KeyboardInterrupt):
        print("")
    return results


if __name__ == "__main__":
    main()
