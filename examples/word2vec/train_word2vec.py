#!/usr/bin/env python
"""Learns word embeddings with word2vec (skip-gram or CBOW).

The example shows a model whose output layer is a pluggable loss link:
``L.NegativeSampling`` (``--out-type ns``), ``L.BinaryHierarchicalSoftmax``
over a Huffman tree of the word counts (``hsm``), or a plain softmax over the
whole vocabulary (``original``). Skip-gram predicts the centre word from each
word of its context, CBOW from the mean of the context embeddings. A custom
iterator (``WindowIterator``) gives batches of centre words and their
contexts, a converter sends them to the device, and a ``StandardUpdater``
with Adam trains the model under a ``Trainer`` (``Evaluator``, ``LogReport``,
``PrintReport``, ``ProgressBar``, snapshots). The embeddings are written to
``OUT/word2vec.model`` as text; ``search.py`` finds the nearest words.

The corpus is the Penn Treebank when its files are in the dataset root (or
with ``--dataset ptb``, which downloads it), otherwise Python's own help text
(see ``corpus.py``).

Run::

    python train_word2vec.py                          # skip-gram, hierarchical softmax
    python train_word2vec.py --model cbow --out-type ns
    python train_word2vec.py --test                   # a tiny run, seconds
    python train_word2vec.py --resume result/snapshot_iter_280 --epoch 20
    python search.py --query class --query exception  # nearest words
"""

import argparse
import collections
import os

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

import corpus


class ContinuousBoW(chainer.Chain):
    """CBOW: predicts the centre word from the mean of its context.

    Args:
        n_vocab (int): Number of words in the vocabulary.
        n_units (int): Size of the word embeddings.
        loss_func (~chainer.Link): Loss of (hidden vectors, centre words).
    """

    def __init__(self, n_vocab, n_units, loss_func):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(
                n_vocab, n_units, initialW=chainer.initializers.Uniform(1.0 / n_units)
            )
            self.loss_func = loss_func

    def forward(self, x, contexts):
        e = self.embed(contexts)
        h = F.sum(e, axis=1) * (1.0 / contexts.shape[1])
        loss = self.loss_func(h, x)
        chainer.report({"loss": loss}, self)
        return loss


class SkipGram(chainer.Chain):
    """Skip-gram: predicts the centre word from each context word.

    Predicting each context word from the centre word and the centre word
    from each context word give the same pairs, so the second is computed.

    Args:
        n_vocab (int): Number of words in the vocabulary.
        n_units (int): Size of the word embeddings.
        loss_func (~chainer.Link): Loss of (hidden vectors, centre words).
    """

    def __init__(self, n_vocab, n_units, loss_func):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(
                n_vocab, n_units, initialW=chainer.initializers.Uniform(1.0 / n_units)
            )
            self.loss_func = loss_func

    def forward(self, x, contexts):
        e = self.embed(contexts)
        batch_size, n_context, n_units = e.shape
        x = F.broadcast_to(x[:, None], (batch_size, n_context))
        e = F.reshape(e, (batch_size * n_context, n_units))
        x = F.reshape(x, (batch_size * n_context,))
        loss = self.loss_func(e, x)
        chainer.report({"loss": loss}, self)
        return loss


class SoftmaxCrossEntropyLoss(chainer.Chain):
    """A linear layer and softmax cross entropy over the whole vocabulary.

    Args:
        n_in (int): Size of the input vectors.
        n_out (int): Number of words in the vocabulary.
    """

    def __init__(self, n_in, n_out):
        super().__init__()
        with self.init_scope():
            self.out = L.Linear(n_in, n_out, initialW=0)

    def forward(self, x, t):
        return F.softmax_cross_entropy(self.out(x), t)


class WindowIterator(chainer.dataset.Iterator):
    """Gives batches of centre words and their context words, in random order.

    Each batch is ``(center, contexts)``: ``batch_size`` centre words and, for
    each, the ``w`` words on either side of it, where ``w`` is drawn anew for
    every batch between 1 and ``window``.

    Args:
        dataset (numpy.ndarray): The word ids, one long sequence.
        window (int): Largest number of context words on each side.
        batch_size (int): Number of centre words in each batch.
        repeat (bool): If ``False``, stop after one sweep over the words.
    """

    def __init__(self, dataset, window, batch_size, repeat=True):
        self.dataset = np.array(dataset, np.int32)
        self.window = window
        self.batch_size = batch_size
        self._repeat = repeat
        # The centre positions, shuffled: every word that has a full window
        # on both sides.
        self.order = np.random.permutation(len(dataset) - window * 2).astype(np.int32)
        self.order += window
        self.reset()

    def reset(self):
        """Goes back to the start of a sweep."""
        self.current_position = 0
        # Completed sweeps over the words; is_new_epoch tells whether the last
        # batch completed one.
        self.epoch = 0
        self.is_new_epoch = False

    def __next__(self):
        if not self._repeat and self.epoch > 0:
            raise StopIteration

        i = self.current_position
        i_end = i + self.batch_size
        position = self.order[i:i_end]
        w = np.random.randint(1, self.window + 1)
        offset = np.concatenate([np.arange(-w, 0), np.arange(1, w + 1)])
        pos = position[:, None] + offset[None, :]
        contexts = self.dataset.take(pos)
        center = self.dataset.take(position)

        if i_end >= len(self.order):
            np.random.shuffle(self.order)
            self.epoch += 1
            self.is_new_epoch = True
            self.current_position = 0
        else:
            self.is_new_epoch = False
            self.current_position = i_end

        return center, contexts

    @property
    def epoch_detail(self):
        return self.epoch + float(self.current_position) / len(self.order)

    def serialize(self, serializer):
        self.current_position = serializer("current_position", self.current_position)
        self.epoch = serializer("epoch", self.epoch)
        self.is_new_epoch = serializer("is_new_epoch", self.is_new_epoch)
        serializer("order", self.order)


@chainer.dataset.converter()
def convert(batch, device):
    """Sends a batch of ``(center, contexts)`` arrays to the device."""
    center, contexts = batch
    return device.send(center), device.send(contexts)


def save_embeddings(path, words, W):
    """Writes the embeddings as text, atomically.

    The first line is ``n_vocab n_units``; each other line is a word and its
    vector, separated by spaces (the format ``search.py`` reads).

    Args:
        path (str): The file to write.
        words (list of str): The word of each id.
        W (numpy.ndarray): The embeddings, shape ``(n_vocab, n_units)``.
    """
    temp_path = f"{path}.{os.getpid()}.tmp"
    with open(temp_path, "w", encoding="utf-8") as f:
        f.write(f"{W.shape[0]} {W.shape[1]}\n")
        for word, vector in zip(words, W, strict=True):
            f.write(word + " " + " ".join(map(str, vector)) + "\n")
    os.replace(temp_path, path)


def positive_int(text):
    """Argument type of counts such as ``--epoch``: an integer of at least 1."""
    if not text.strip().isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return int(text)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Chainer example: word2vec (skip-gram or CBOW)"
    )
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="@numpy",
        help="Device specifier: @numpy, @cupy:N, or an integer (negative for NumPy)",
    )
    parser.add_argument(
        "--unit",
        "-u",
        default=100,
        type=positive_int,
        help="Number of units (embedding size)",
    )
    parser.add_argument(
        "--window",
        "-w",
        default=5,
        type=positive_int,
        help="Window size (context words on each side)",
    )
    parser.add_argument(
        "--batchsize",
        "-b",
        type=positive_int,
        default=1000,
        help="Number of words in each minibatch",
    )
    parser.add_argument(
        "--epoch",
        "-e",
        default=20,
        type=positive_int,
        help="Number of sweeps over the dataset to train",
    )
    parser.add_argument(
        "--model",
        "-m",
        choices=["skipgram", "cbow"],
        default="skipgram",
        help="Model type: skip-gram or continuous bag of words",
    )
    parser.add_argument(
        "--negative-size",
        default=5,
        type=int,
        help="Number of negative samples (--out-type ns)",
    )
    parser.add_argument(
        "--out-type",
        choices=["hsm", "ns", "original"],
        default="hsm",
        help="Output layer: hierarchical softmax, negative sampling, or softmax",
    )
    parser.add_argument(
        "--out", "-o", default="result", help="Directory to output the result"
    )
    parser.add_argument(
        "--snapshot-interval",
        type=positive_int,
        default=5,
        help="Epochs between snapshots",
    )
    parser.add_argument(
        "--resume", "-r", type=str, help="Resume the training from snapshot"
    )
    parser.add_argument(
        "--test", action="store_true", help="Use tiny datasets for quick tests"
    )
    parser.add_argument(
        "--dataset",
        choices=corpus.CHOICES,
        default="auto",
        help="Corpus: ptb (Penn Treebank, downloaded if needed), pydoc "
        "(Python's help text), or auto (ptb if already here, else pydoc)",
    )
    parser.add_argument(
        "--vocab",
        type=int,
        default=2000,
        help="Vocabulary size of the pydoc corpus (rarer words become <unk>)",
    )
    args = parser.parse_args(argv)
    if args.resume is not None and not os.path.exists(args.resume):
        parser.error(f"--resume: no such file: {args.resume}")

    try:
        device = chainer.get_device(args.device)
        device.use()
    except (ValueError, RuntimeError) as e:
        parser.error(f"--device: {e}")

    print(f"Device: {device}")
    print(f"# unit: {args.unit}")
    print(f"Window: {args.window}")
    print(f"Minibatch-size: {args.batchsize}")
    print(f"# epoch: {args.epoch}")
    print(f"Training model: {args.model}")
    print(f"Output type: {args.out_type}")
    print("")

    data = corpus.load(args.dataset, args.vocab)
    train, val = data.train, data.valid
    if args.test:
        train = train[:100]
        val = val[:100]
    if min(len(train), len(val)) <= 2 * args.window:
        parser.error("the corpus is too short for the window")
    # Words that never occur get a count of 0: they are never sampled as
    # negatives, and have no place in the Huffman tree (they are never a
    # centre word).
    counts = collections.Counter(train)
    counts.update(val)
    n_vocab = len(data.vocab)
    index2word = sorted(data.vocab, key=data.vocab.get)

    print(f"Corpus: {data.name}")
    print(f"n_vocab: {n_vocab}")
    print(f"data length: {len(train)}")

    if args.out_type == "hsm":
        tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(counts)
        loss_func = L.BinaryHierarchicalSoftmax(args.unit, tree)
        loss_func.W.array[...] = 0
    elif args.out_type == "ns":
        cs = [counts[w] for w in range(n_vocab)]
        loss_func = L.NegativeSampling(args.unit, cs, args.negative_size)
        loss_func.W.array[...] = 0
    else:
        loss_func = SoftmaxCrossEntropyLoss(args.unit, n_vocab)

    if args.model == "skipgram":
        model = SkipGram(n_vocab, args.unit, loss_func)
    else:
        model = ContinuousBoW(n_vocab, args.unit, loss_func)
    model.to_device(device)

    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    train_iter = WindowIterator(train, args.window, args.batchsize)
    val_iter = WindowIterator(val, args.window, args.batchsize, repeat=False)

    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, converter=convert, device=device
    )
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)
    trainer.extend(
        extensions.Evaluator(val_iter, model, converter=convert, device=device)
    )
    trainer.extend(extensions.LogReport())
    trainer.extend(
        extensions.PrintReport(["epoch", "main/loss", "validation/main/loss"])
    )
    trainer.extend(extensions.ProgressBar())
    trainer.extend(
        extensions.snapshot(filename="snapshot_iter_{.updater.iteration}"),
        trigger=(args.snapshot_interval, "epoch"),
    )
    if args.resume is not None:
        try:
            chainer.serializers.load_npz(args.resume, trainer)
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"--resume: {error}")

    trainer.run()

    path = os.path.join(args.out, "word2vec.model")
    W = chainer.backends.cuda.to_cpu(model.embed.W.array)
    save_embeddings(path, index2word, W)
    print(f"Embeddings saved to {path}")
    return {"model_path": path}


if __name__ == "__main__":
    main()
