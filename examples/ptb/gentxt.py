#!/usr/bin/env python
"""Generates text with a language model trained by ``train_ptb.py``.

The model reads the words of ``--primetext``, then writes ``--length`` more
words, each drawn from its predicted distribution of the next word
(``--no-sample`` takes the most likely word instead). ``<eos>`` (the end of
a sentence) is written as a full stop and a new line.

Run::

    python train_ptb.py
    python gentxt.py --primetext "the for"
    python gentxt.py -m result/model.npz -p "an exception" --length 50 --seed 1
"""

import argparse
import json
import os

import numpy as np
from train_ptb import RNNForLM
from train_ptb import vocabulary_path

import chainer
import chainer.functions as F
import chainer.links as L


def generate(model, vocab, primetext, length, sample=True, device=None):
    """Continues a text with words predicted by a language model.

    Args:
        model (~chainer.links.Classifier): The trained model, an
            ``RNNForLM`` wrapped in a classifier.
        vocab (dict): Words to ids.
        primetext (list of str): The words to start from (all in ``vocab``).
        length (int): Number of words to generate.
        sample (bool): Draw each word from the predicted distribution if
            ``True``; take the most likely word otherwise.
        device: Device the model is on (``None``: the CPU).

    Returns:
        list of str: The generated words, ``primetext`` not included.
    """
    words = sorted(vocab, key=vocab.get)
    xp = np if device is None else device.xp
    rnn = model.predictor
    rnn.reset_state()
    words_out = []
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        for word in primetext:
            y = rnn(xp.array([vocab[word]], dtype=np.int32))
        for _ in range(length):
            prob = chainer.backends.cuda.to_cpu(F.softmax(y).array[0])
            if sample:
                prob = prob.astype(np.float64)
                index = np.random.choice(len(prob), p=prob / prob.sum())
            else:
                index = int(np.argmax(prob))
            words_out.append(words[index])
            y = rnn(xp.array([index], dtype=np.int32))
    return words_out


def format_text(words):
    """Joins words into text; ``<eos>`` ends a line with a full stop.

    Args:
        words (list of str): The words.

    Returns:
        str: The text.
    """
    lines = []
    line = []
    for word in words:
        if word == "<eos>":
            lines.append(" ".join(line) + ".")
            line = []
        else:
            line.append(word)
    if line:
        lines.append(" ".join(line))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Chainer example: generate text with a trained LSTM language model"
    )
    parser.add_argument(
        "--model",
        "-m",
        default="result/model.npz",
        help="Model file written by train_ptb.py",
    )
    parser.add_argument(
        "--vocab",
        default=None,
        help="Vocabulary file of the model (default: next to the model, .vocab.json)",
    )
    parser.add_argument(
        "--primetext",
        "-p",
        default="the",
        help="Words to start from, separated by spaces (all in the vocabulary)",
    )
    parser.add_argument(
        "--length", "-l", type=int, default=40, help="Number of words to generate"
    )
    parser.add_argument(
        "--sample",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="Draw each word at random from the predicted distribution "
        "(--no-sample: take the most likely word)",
    )
    parser.add_argument("--seed", type=int, default=123, help="Random seed")
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="@numpy",
        help="Device specifier: @numpy, @cupy:N, or an integer (negative for NumPy)",
    )
    args = parser.parse_args(argv)
    if args.vocab is None:
        args.vocab = vocabulary_path(args.model)
    for path in (args.model, args.vocab):
        if not os.path.isfile(path):
            parser.error(
                f"no such file: {path} (train a model with train_ptb.py first)"
            )

    np.random.seed(args.seed)
    try:
        device = chainer.get_device(args.device)
        device.use()
    except (ValueError, RuntimeError) as e:
        parser.error(f"--device: {e}")

    with open(args.vocab, encoding="utf-8") as f:
        info = json.load(f)
    vocab = {word: i for i, word in enumerate(info["words"])}
    primetext = args.primetext.lower().split()
    if not primetext:
        parser.error("--primetext needs at least one word")
    unknown = [word for word in primetext if word not in vocab]
    if unknown:
        parser.error(f"not in the vocabulary of the model: {' '.join(unknown)}")

    model = L.Classifier(RNNForLM(len(vocab), info["unit"]))
    chainer.serializers.load_npz(args.model, model)
    model.to_device(device)

    words = generate(model, vocab, primetext, args.length, args.sample, device)
    print(format_text(primetext + words))
    return words


if __name__ == "__main__":
    main()
