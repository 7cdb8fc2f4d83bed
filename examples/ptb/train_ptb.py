#!/usr/bin/env python
"""Trains an LSTM language model with truncated backpropagation through time.

The example shows how a recurrent net is trained with a ``Trainer``: a model of
``L.EmbedID``, two ``L.LSTM`` layers and ``L.Linear`` (with dropout) wrapped
in ``L.Classifier``; a custom iterator (``ParallelSequentialIterator``) that
reads the corpus at ``batchsize`` places at once; a custom updater
(``BPTTUpdater``) that accumulates the loss over ``--bproplen`` words, then
calls ``backward()`` and ``unchain_backward()`` (truncated BPTT); SGD with
``GradientClipping``; and an ``Evaluator`` on a copy of the model whose state
is reset before each evaluation. The log reports the perplexity,
``exp(loss)``, of the training and validation words; at the end the test
perplexity is printed and the model is saved for ``gentxt.py``.

The corpus is the Penn Treebank when its files are in the dataset root (or
with ``--dataset ptb``, which downloads it), otherwise Python's own help text
(see ``corpus.py``).

Run::

    python train_ptb.py                        # a few minutes on 2 CPU cores
    python train_ptb.py --test                 # a tiny run, seconds
    python train_ptb.py --device @cupy:0 --dataset ptb --unit 650 --epoch 39
    python train_ptb.py --resume result/snapshot_iter_640 --epoch 12
    python gentxt.py --primetext "the for"     # generate text with the model
"""

import argparse
import json
import os

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

import corpus


class RNNForLM(chainer.Chain):
    """A two-layer LSTM language model: it predicts the next word of each word.

    Args:
        n_vocab (int): Number of words in the vocabulary.
        n_units (int): Size of the word embeddings and of each LSTM layer.
    """

    def __init__(self, n_vocab, n_units):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.l1 = L.LSTM(n_units, n_units)
            self.l2 = L.LSTM(n_units, n_units)
            self.l3 = L.Linear(n_units, n_vocab)
        for param in self.params():
            param.array[...] = np.random.uniform(-0.1, 0.1, param.shape)

    def reset_state(self):
        """Forgets the state of both LSTM layers (the words read so far)."""
        self.l1.reset_state()
        self.l2.reset_state()

    def forward(self, x):
        h0 = self.embed(x)
        h1 = self.l1(F.dropout(h0))
        h2 = self.l2(F.dropout(h1))
        return self.l3(F.dropout(h2))


class ParallelSequentialIterator(chainer.dataset.Iterator):
    """Reads a long sequence at ``batch_size`` evenly spaced places at once.

    Each batch is a list of ``(current word, next word)`` pairs, one per
    place; every call moves all places one word forward, wrapping around at
    the end of the sequence.

    Args:
        dataset (numpy.ndarray): The word ids, one long sequence.
        batch_size (int): Number of places read in parallel.
        repeat (bool): If ``False``, stop after one sweep over the sequence.
    """

    def __init__(self, dataset, batch_size, repeat=True):
        super().__init__()
        self.dataset = dataset
        self.batch_size = batch_size
        self.repeat = repeat
        length = len(dataset)
        self.offsets = [i * length // batch_size for i in range(batch_size)]
        self.reset()

    def reset(self):
        """Goes back to the start of the sequence."""
        # Completed sweeps over the sequence; is_new_epoch tells whether the
        # last call completed one.
        self.epoch = 0
        self.is_new_epoch = False
        # A count of calls of __next__ (words read at each place), not of
        # parameter updates.
        self.iteration = 0
        self._previous_epoch_detail = -1.0

    def __next__(self):
        length = len(self.dataset)
        if not self.repeat and self.iteration * self.batch_size >= length:
            raise StopIteration
        cur_words = self.get_words()
        self._previous_epoch_detail = self.epoch_detail
        self.iteration += 1
        next_words = self.get_words()

        epoch = self.iteration * self.batch_size // length
        self.is_new_epoch = self.epoch < epoch
        if self.is_new_epoch:
            self.epoch = epoch
        return list(zip(cur_words, next_words, strict=True))

    @property
    def epoch_detail(self):
        return self.iteration * self.batch_size / len(self.dataset)

    @property
    def previous_epoch_detail(self):
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    def get_words(self):
        """Returns the current word at each place.

        Returns:
            list: ``batch_size`` word ids.
        """
        length = len(self.dataset)
        return [
            self.dataset[(offset + self.iteration) % length] for offset in self.offsets
        ]

    def serialize(self, serializer):
        self.iteration = serializer("iteration", self.iteration)
        self.epoch = serializer("epoch", self.epoch)
        self._previous_epoch_detail = serializer(
            "previous_epoch_detail", self._previous_epoch_detail
        )


class BPTTUpdater(training.updaters.StandardUpdater):
    """Updates the model once every ``bprop_len`` words (truncated BPTT).

    Args:
        train_iter (ParallelSequentialIterator): The training iterator.
        optimizer (~chainer.Optimizer): The optimizer of the model.
        bprop_len (int): Number of words the loss is accumulated over before
            each backward pass.
        device: Device the batches are sent to.
    """

    def __init__(self, train_iter, optimizer, bprop_len, device):
        super().__init__(train_iter, optimizer, device=device)
        self.bprop_len = bprop_len

    def update_core(self):
        loss = 0
        train_iter = self.get_iterator("main")
        optimizer = self.get_optimizer("main")

        # Read bprop_len words at every place, adding up the loss.
        for _ in range(self.bprop_len):
            batch = train_iter.__next__()
            x, t = self.converter(batch, self.device)
            loss += optimizer.target(x, t)

        optimizer.target.cleargrads()
        loss.backward()
        # Cut the graph here: the LSTM state is kept, its history is not.
        loss.unchain_backward()
        optimizer.update()


def compute_perplexity(result):
    """Adds the perplexities to a log entry (the LogReport postprocess).

    Args:
        result (dict): The entry, with ``main/loss`` and, after an
            evaluation, ``validation/main/loss``.
    """
    result["perplexity"] = np.exp(result["main/loss"])
    if "validation/main/loss" in result:
        result["val_perplexity"] = np.exp(result["validation/main/loss"])


def save_vocabulary(path, vocab, n_units, dataset):
    """Writes what ``gentxt.py`` needs besides the weights, atomically.

    Args:
        path (str): The JSON file to write.
        vocab (dict): Words to ids.
        n_units (int): Size of the model's layers.
        dataset (str): Name of the corpus.
    """
    words = sorted(vocab, key=vocab.get)
    info = {"dataset": dataset, "unit": n_units, "words": words}
    temp_path = f"{path}.{os.getpid()}.tmp"
    with open(temp_path, "w", encoding="utf-8") as f:
        json.dump(info, f)
    os.replace(temp_path, path)


def vocabulary_path(model_path):
    """Returns where the vocabulary of a saved model is kept.

    Args:
        model_path (str): Path of the model file, e.g. ``result/model.npz``.

    Returns:
        str: The JSON file next to it, e.g. ``result/model.vocab.json``.
    """
    return os.path.splitext(model_path)[0] + ".vocab.json"


def positive_int(text):
    """Argument type of counts such as ``--epoch``: an integer of at least 1."""
    if not text.strip().isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return int(text)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Chainer example: an LSTM language model (truncated BPTT)"
    )
    parser.add_argument(
        "--batchsize",
        "-b",
        type=positive_int,
        default=20,
        help="Number of examples in each minibatch",
    )
    parser.add_argument(
        "--bproplen",
        "-l",
        type=positive_int,
        default=35,
        help="Number of words in each minibatch (= length of truncated BPTT)",
    )
    parser.add_argument(
        "--epoch",
        "-e",
        type=positive_int,
        default=8,
        help="Number of sweeps over the dataset to train",
    )
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="@numpy",
        help="Device specifier: @numpy, @cupy:N, or an integer (negative for NumPy)",
    )
    parser.add_argument(
        "--gradclip",
        "-c",
        type=float,
        default=5,
        help="Gradient norm threshold to clip",
    )
    parser.add_argument(
        "--out", "-o", default="result", help="Directory to output the result"
    )
    parser.add_argument(
        "--resume", "-r", type=str, help="Resume the training from snapshot"
    )
    parser.add_argument(
        "--test", action="store_true", help="Use tiny datasets for quick tests"
    )
    parser.add_argument(
        "--unit",
        "-u",
        type=positive_int,
        default=200,
        help="Number of LSTM units in each layer",
    )
    parser.add_argument(
        "--model",
        "-m",
        default=None,
        help="Model file to write (default: OUT/model.npz); the vocabulary "
        "goes next to it as .vocab.json",
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
    if args.model is None:
        args.model = os.path.join(args.out, "model.npz")

    try:
        device = chainer.get_device(args.device)
        device.use()
    except (ValueError, RuntimeError) as e:
        parser.error(f"--device: {e}")

    data = corpus.load(args.dataset, args.vocab)
    train, val, test = data.train, data.valid, data.test
    n_vocab = len(data.vocab)
    if args.test:
        train = train[:100]
        val = val[:100]
        test = test[:100]

    print(f"Device: {device}")
    print(f"Corpus: {data.name}")
    print(f"#vocab = {n_vocab}")
    print(f"#words: train {len(train)}, validation {len(val)}, test {len(test)}")
    print(f"# unit: {args.unit}")
    print(f"# Minibatch-size: {args.batchsize}")
    print(f"# bproplen: {args.bproplen}")
    print(f"# epoch: {args.epoch}")
    print("")

    train_iter = ParallelSequentialIterator(train, args.batchsize)
    val_iter = ParallelSequentialIterator(val, 1, repeat=False)
    test_iter = ParallelSequentialIterator(test, 1, repeat=False)

    rnn = RNNForLM(n_vocab, args.unit)
    model = L.Classifier(rnn)
    model.compute_accuracy = False  # we only want the perplexity
    model.to_device(device)

    optimizer = chainer.optimizers.SGD(lr=1.0)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.GradientClipping(args.gradclip))

    updater = BPTTUpdater(train_iter, optimizer, args.bproplen, device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    eval_model = model.copy()  # shares the parameters, has its own state
    eval_rnn = eval_model.predictor
    trainer.extend(
        extensions.Evaluator(
            val_iter,
            eval_model,
            device=device,
            # Start every evaluation from a fresh state.
            eval_hook=lambda _: eval_rnn.reset_state(),
        )
    )

    interval = (1, "iteration") if args.test else (1, "epoch")
    trainer.extend(
        extensions.LogReport(postprocess=compute_perplexity, trigger=interval)
    )
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "iteration", "perplexity", "val_perplexity", "elapsed_time"]
        ),
        trigger=interval,
    )
    trainer.extend(extensions.ProgressBar(update_interval=1 if args.test else 10))
    trainer.extend(extensions.snapshot(n_retains=1))
    trainer.extend(
        extensions.snapshot_object(
            model, "model_iter_{.updater.iteration}", n_retains=1
        )
    )

    if args.resume is not None:
        try:
            chainer.serializers.load_npz(args.resume, trainer)
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"--resume: {error}")

    trainer.run()

    # The test words, read by a model with a fresh state.
    print("test")
    eval_rnn.reset_state()
    evaluator = extensions.Evaluator(test_iter, eval_model, device=device)
    result = evaluator()
    test_perplexity = float(np.exp(float(result["main/loss"])))
    print(f"test perplexity: {test_perplexity}")

    # Save the model and its vocabulary for gentxt.py.
    model.to_device("@numpy")
    chainer.serializers.save_npz(args.model, model)
    save_vocabulary(vocabulary_path(args.model), data.vocab, args.unit, data.name)
    print(f"Model saved to {args.model}")
    return {"test_perplexity": test_perplexity}


if __name__ == "__main__":
    main()
