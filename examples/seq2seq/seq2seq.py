"""Sequence-to-sequence translation: an NStepLSTM encoder-decoder scored by BLEU.

The encoder reads the source sentence (reversed, which helps LSTMs) and hands
its final states to the decoder, which is trained to emit the target sentence
word by word and translates greedily. A Trainer runs it with LogReport,
PrintReport, ProgressBar, snapshots and two extensions of its own: one that
reports the validation BLEU and one that prints a sample translation.

By default it learns a toy translation task it generates itself: numbers
below a million written in English words -> the same numbers in French words
(``seventy two thousand`` -> ``soixante-douze mille``). To train on your own
parallel corpus, give files with one sentence per line and words separated by
spaces::

    python seq2seq.py                      # generated corpus, a few minutes
    python seq2seq.py --source train.en --target train.fr \\
        --validation-source valid.en --validation-target valid.fr
"""

import argparse
import collections
import os

import numpy

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

import bleu
import number_corpus

UNK = 0
EOS = 1


def sequence_embed(embed, xs):
    """Embeds a list of id sequences with a single call of the embedding.

    Args:
        embed (~chainer.links.EmbedID): The embedding.
        xs (list of array): Id sequences of any lengths.

    Returns:
        tuple of ~chainer.Variable: ``(len(x), n_units)`` embeddings.
    """
    x_len = [len(x) for x in xs]
    x_section = numpy.cumsum(x_len[:-1])
    ex = embed(F.concat(xs, axis=0))
    return F.split_axis(ex, x_section, 0)


class Seq2seq(chainer.Chain):
    """Encoder-decoder of stacked LSTMs without attention.

    Args:
        n_layers (int): Number of LSTM layers of the encoder and the decoder.
        n_source_vocab (int): Source vocabulary size.
        n_target_vocab (int): Target vocabulary size.
        n_units (int): Size of the embeddings and the hidden states.
    """

    def __init__(self, n_layers, n_source_vocab, n_target_vocab, n_units):
        super().__init__()
        with self.init_scope():
            self.embed_x = L.EmbedID(n_source_vocab, n_units)
            self.embed_y = L.EmbedID(n_target_vocab, n_units)
            self.encoder = L.NStepLSTM(n_layers, n_units, n_units, 0.1)
            self.decoder = L.NStepLSTM(n_layers, n_units, n_units, 0.1)
            self.W = L.Linear(n_units, n_target_vocab)
        self.n_layers = n_layers
        self.n_units = n_units

    def forward(self, xs, ys):
        """Returns the summed cross entropy per sentence; reports loss and perp."""
        xs = [x[::-1] for x in xs]
        eos = self.xp.array([EOS], numpy.int32)
        # The decoder reads EOS then the sentence, and must predict the
        # sentence then EOS.
        ys_in = [F.concat([eos, y], axis=0) for y in ys]
        ys_out = [F.concat([y, eos], axis=0) for y in ys]

        exs = sequence_embed(self.embed_x, xs)
        eys = sequence_embed(self.embed_y, ys_in)
        batch = len(xs)
        # None as the initial states means zeros.
        hx, cx, _ = self.encoder(None, None, exs)
        _, _, os = self.decoder(hx, cx, eys)

        # One matrix product for all positions of all sentences.
        concat_os = F.concat(os, axis=0)
        concat_ys_out = F.concat(ys_out, axis=0)
        losses = F.softmax_cross_entropy(self.W(concat_os), concat_ys_out, reduce="no")
        loss = F.sum(losses) / batch
        chainer.report({"loss": loss}, self)
        n_words = concat_ys_out.shape[0]
        perp = self.xp.exp(loss.array * batch / n_words)
        chainer.report({"perp": perp}, self)
        return loss

    def translate(self, xs, max_length=100):
        """Translates greedily, stopping once every sentence has emitted EOS.

        Args:
            xs (list of array): Source id sequences on the model's device.
            max_length (int): Longest translation to produce.

        Returns:
            list of numpy.ndarray: Target id sequences without EOS.
        """
        batch = len(xs)
        with chainer.no_backprop_mode(), chainer.using_config("train", False):
            xs = [x[::-1] for x in xs]
            exs = sequence_embed(self.embed_x, xs)
            h, c, _ = self.encoder(None, None, exs)
            ys = self.xp.full(batch, EOS, numpy.int32)
            finished = self.xp.zeros(batch, bool)
            result = []
            for _ in range(max_length):
                eys = self.embed_y(ys)
                eys = F.split_axis(eys, batch, 0)
                h, c, ys = self.decoder(h, c, eys)
                cys = F.concat(ys, axis=0)
                wy = self.W(cys)
                ys = self.xp.argmax(wy.array, axis=1).astype(numpy.int32)
                result.append(ys)
                finished |= ys == EOS
                if finished.all():
                    break
        result = chainer.get_device("@numpy").send(self.xp.stack(result).T)

        # Cut each sentence at its first EOS.
        outs = []
        for y in result:
            inds = numpy.argwhere(y == EOS)
            if len(inds) > 0:
                y = y[: inds[0, 0]]
            outs.append(y)
        return outs


@chainer.dataset.converter()
def convert(batch, device):
    """Sends a batch of ``(source, target)`` pairs to the device.

    The sequences differ in length, so they cannot be stacked into one array:
    each side is concatenated, sent in one transfer, and split again.

    Returns:
        dict: ``xs`` and ``ys``, lists of id arrays, the keyword arguments of
        :meth:`Seq2seq.forward`.
    """

    def to_device_batch(arrays):
        if device is None:
            return arrays
        sections = numpy.cumsum([len(a) for a in arrays[:-1]])
        concat = device.send(numpy.concatenate(arrays, axis=0))
        return device.xp.split(concat, sections)

    return {
        "xs": to_device_batch([x for x, _ in batch]),
        "ys": to_device_batch([y for _, y in batch]),
    }


class CalculateBleu(training.Extension):
    """Translates the validation pairs and reports their corpus BLEU.

    Args:
        model (Seq2seq): The model.
        test_data (list of tuple): ``(source, target)`` id arrays.
        key (str): Name to report the score under.
        device (~chainer.backend.Device): The model's device.
        batch (int): Sentences translated at once.
        max_length (int): Longest translation.

    Attributes:
        score (float): The last score (None before the first evaluation).
        iteration (int): The iteration the last score was computed at.
    """

    trigger = 1, "epoch"
    priority = training.PRIORITY_WRITER

    def __init__(self, model, test_data, key, device, batch=100, max_length=100):
        self.model = model
        self.test_data = test_data
        self.key = key
        self.device = device
        self.batch = batch
        self.max_length = max_length
        self.score = None
        self.iteration = None

    def __call__(self, trainer):
        references = []
        hypotheses = []
        for i in range(0, len(self.test_data), self.batch):
            sources, targets = zip(*self.test_data[i : i + self.batch], strict=True)
            references.extend([[t.tolist()] for t in targets])
            sources = [self.device.send(x) for x in sources]
            ys = self.model.translate(sources, self.max_length)
            hypotheses.extend(y.tolist() for y in ys)
        self.score = bleu.corpus_bleu(references, hypotheses)
        self.iteration = trainer.updater.iteration
        chainer.report({self.key: self.score})


def build_vocabulary(sentences, size):
    """Maps the ``size`` most frequent words to ids from 2 (0 is UNK, 1 EOS)."""
    counts = collections.Counter(w for s in sentences for w in s.split())
    word_ids = {"<UNK>": UNK, "<EOS>": EOS}
    for word, _ in counts.most_common(size):
        word_ids[word] = len(word_ids)
    return word_ids


def load_vocabulary(lines):
    """Maps the words of a vocabulary file's lines to ids from 2, in order."""
    word_ids = {"<UNK>": UNK, "<EOS>": EOS}
    for word in lines:
        # Blank lines, repeats and the special words get no id of their own.
        if word and word not in word_ids:
            word_ids[word] = len(word_ids)
    return word_ids


def to_ids(vocabulary, sentence):
    """Converts a sentence to an int32 array of word ids."""
    words = sentence.split()
    return numpy.array([vocabulary.get(w, UNK) for w in words], numpy.int32)


def unknown_ratio(data):
    """Returns the fraction of UNK ids in a list of id arrays."""
    unknown = sum(int((s == UNK).sum()) for s in data)
    total = sum(s.size for s in data)
    return unknown / max(total, 1)


def read_lines(parser, path):
    """Reads a UTF-8 text file's stripped lines; a parser error if it cannot."""
    try:
        with open(path, encoding="utf-8") as f:
            return [line.strip() for line in f]
    except FileNotFoundError:
        parser.error(f"no such file: {path}")
    except UnicodeDecodeError:
        parser.error(f"{path} is not UTF-8 text")
    except OSError as e:
        parser.error(f"cannot read {path}: {e.strerror}")


def read_parallel(parser, source_path, target_path):
    """Reads two files of aligned sentences; their line counts must match."""
    sources = read_lines(parser, source_path)
    targets = read_lines(parser, target_path)
    if len(sources) != len(targets):
        parser.error(
            f"{source_path} has {len(sources)} lines but {target_path} has "
            f"{len(targets)}; a parallel corpus needs one target line per "
            "source line"
        )
    return list(zip(sources, targets, strict=True))


def load_corpus(parser, args):
    """Returns training and validation sentence pairs (generated or read)."""
    if args.source is None and args.target is None:
        n_valid = args.validation_size
        if args.train_size + n_valid > number_corpus.MAX_PAIRS:
            parser.error(
                f"the generated corpus has {number_corpus.MAX_PAIRS} pairs at most"
            )
        pairs = number_corpus.generate(args.train_size + n_valid, seed=args.seed)
        return pairs[n_valid:], pairs[:n_valid]
    if args.source is None or args.target is None:
        parser.error("--source and --target go together")
    train = read_parallel(parser, args.source, args.target)
    has_vs = args.validation_source is not None
    if has_vs != (args.validation_target is not None):
        parser.error("--validation-source and --validation-target go together")
    if has_vs:
        valid = read_parallel(parser, args.validation_source, args.validation_target)
        return train, valid
    # No validation files: hold out a random part of the training pairs.
    n_valid = min(args.validation_size, len(train) // 10)
    order = numpy.random.RandomState(args.seed).permutation(len(train))
    train = [train[i] for i in order]
    return train[n_valid:], train[:n_valid]


def positive_int(text):
    """Argument type of counts such as ``--epoch``: an integer of at least 1."""
    if not text.strip().isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return int(text)


def make_parser():
    """Returns the command-line parser."""
    parser = argparse.ArgumentParser(
        description="Chainer example: seq2seq translation with BLEU"
    )
    data = parser.add_argument_group("data (default: a generated corpus)")
    data.add_argument("--source", help="source sentences, one per line")
    data.add_argument("--target", help="target sentences, one per line")
    data.add_argument("--validation-source", help="validation source sentences")
    data.add_argument("--validation-target", help="validation target sentences")
    data.add_argument("--source-vocab", help="source vocabulary, one word per line")
    data.add_argument("--target-vocab", help="target vocabulary, one word per line")
    data.add_argument(
        "--vocab-size",
        type=int,
        default=40000,
        help="words kept per language when building vocabularies",
    )
    data.add_argument(
        "--train-size", type=int, default=12800, help="generated training pairs"
    )
    data.add_argument(
        "--validation-size",
        type=int,
        default=500,
        help="generated (or held-out) validation pairs",
    )
    data.add_argument(
        "--seed", type=int, default=0, help="seed of the corpus and the weights"
    )
    for side in ("source", "target"):
        for bound, default in (("min", 1), ("max", 50)):
            data.add_argument(
                f"--{bound}-{side}-sentence",
                type=int,
                default=default,
                help=f"{bound}imum length of a training {side} sentence",
            )
    parser.add_argument(
        "--batchsize",
        "-b",
        type=positive_int,
        default=64,
        help="number of sentence pairs in each mini-batch",
    )
    parser.add_argument(
        "--epoch",
        "-e",
        type=positive_int,
        default=6,
        help="number of sweeps over the data",
    )
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="@numpy",
        help="device specifier: @numpy, @cupy:0, or an integer (negative: CPU)",
    )
    parser.add_argument(
        "--unit", "-u", type=positive_int, default=128, help="number of units"
    )
    parser.add_argument(
        "--layer", "-l", type=positive_int, default=2, help="number of layers"
    )
    parser.add_argument(
        "--max-length", type=int, default=100, help="longest translation produced"
    )
    parser.add_argument(
        "--log-interval",
        type=positive_int,
        default=100,
        help="iterations between log lines",
    )
    parser.add_argument(
        "--validation-interval",
        type=positive_int,
        help="iterations between BLEU evaluations, sample translations and "
        "snapshots (default: once per epoch)",
    )
    parser.add_argument("--out", "-o", default="result", help="output directory")
    parser.add_argument("--resume", "-r", help="resume from this snapshot")
    return parser


def prepare_data(parser, args):
    """Builds the vocabularies and the id-array datasets; prints statistics.

    Returns:
        tuple: ``(source_ids, target_ids, train_data, test_data)``: the two
        word-to-id dicts and lists of ``(source, target)`` int32 arrays.
    """
    train_pairs, valid_pairs = load_corpus(parser, args)
    if args.source_vocab is not None:
        source_ids = load_vocabulary(read_lines(parser, args.source_vocab))
    else:
        source_ids = build_vocabulary([s for s, _ in train_pairs], args.vocab_size)
    if args.target_vocab is not None:
        target_ids = load_vocabulary(read_lines(parser, args.target_vocab))
    else:
        target_ids = build_vocabulary([t for _, t in train_pairs], args.vocab_size)

    train_data = [
        (to_ids(source_ids, s), to_ids(target_ids, t)) for s, t in train_pairs
    ]
    train_data = [
        (s, t)
        for s, t in train_data
        if args.min_source_sentence <= len(s) <= args.max_source_sentence
        and args.min_target_sentence <= len(t) <= args.max_target_sentence
    ]
    test_data = [(to_ids(source_ids, s), to_ids(target_ids, t)) for s, t in valid_pairs]
    test_data = [(s, t) for s, t in test_data if len(s) > 0 and len(t) > 0]
    if not train_data or not test_data:
        parser.error("no training or validation pairs left after filtering")

    print(f"Source vocabulary size: {len(source_ids)}")
    print(f"Target vocabulary size: {len(target_ids)}")
    print(f"Train data size: {len(train_data)}")
    print(f"Validation data size: {len(test_data)}")
    for name, part in (("Train", train_data), ("Validation", test_data)):
        for side, index in (("source", 0), ("target", 1)):
            ratio = unknown_ratio([pair[index] for pair in part])
            print(f"{name} {side} unknown ratio: {ratio:.2%}")
    return source_ids, target_ids, train_data, test_data


def main(argv=None):
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.resume is not None and not os.path.exists(args.resume):
        parser.error(f"--resume: no such file: {args.resume}")

    try:
        device = chainer.get_device(args.device)
        device.use()
    except (ValueError, RuntimeError) as e:
        parser.error(f"--device {args.device}: {e}")
    numpy.random.seed(args.seed)
    print(f"Device: {device}")
    print(f"# unit: {args.unit}  # layer: {args.layer}")
    print(f"# Minibatch-size: {args.batchsize}  # epoch: {args.epoch}")
    source_ids, target_ids, train_data, test_data = prepare_data(parser, args)
    source_words = {i: w for w, i in source_ids.items()}
    target_words = {i: w for w, i in target_ids.items()}
    print("")

    model = Seq2seq(args.layer, len(source_ids), len(target_ids), args.unit)
    model.to_device(device)
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    train_iter = chainer.iterators.SerialIterator(train_data, args.batchsize)
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, converter=convert, device=device
    )
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)
    log_trigger = (args.log_interval, "iteration")
    if args.validation_interval is None:
        validation_trigger = (1, "epoch")
    else:
        validation_trigger = (args.validation_interval, "iteration")
    trainer.extend(extensions.LogReport(trigger=log_trigger))
    trainer.extend(
        extensions.PrintReport(
            [
                "epoch",
                "iteration",
                "main/loss",
                "main/perp",
                "validation/main/bleu",
                "elapsed_time",
            ]
        ),
        trigger=log_trigger,
    )
    trainer.extend(extensions.ProgressBar())
    trainer.extend(
        extensions.snapshot(filename="snapshot_iter_{.updater.iteration}"),
        trigger=validation_trigger,
    )

    @training.make_extension()
    def translate(trainer):
        source, target = test_data[numpy.random.choice(len(test_data))]
        result = model.translate([device.send(source)], args.max_length)[0]
        print("# source : " + " ".join(source_words[x] for x in source))
        print("# result : " + " ".join(target_words[y] for y in result))
        print("# expect : " + " ".join(target_words[y] for y in target))

    trainer.extend(translate, trigger=validation_trigger)
    calculate_bleu = CalculateBleu(
        model, test_data, "validation/main/bleu", device, max_length=args.max_length
    )
    trainer.extend(calculate_bleu, trigger=validation_trigger)

    if args.resume is not None:
        try:
            chainer.serializers.load_npz(args.resume, trainer)
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"--resume: {error}")

    trainer.run()

    # The log misses a score computed after its last line; say the last one.
    if calculate_bleu.score is not None:
        print(
            f"Validation BLEU at iteration {calculate_bleu.iteration}: "
            f"{calculate_bleu.score:.4f}"
        )
    return {"bleu": calculate_bleu.score}


if __name__ == "__main__":
    main()
