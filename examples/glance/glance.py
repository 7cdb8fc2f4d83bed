"""Chainer at a glance: is a mushroom edible or poisonous?

The example from "Chainer at a Glance". It reads the mushrooms data set (8,124
mushrooms, each described by 22 categorical features such as odor, cap color
and habitat, and labelled edible 'e' or poisonous 'p'), one-hot encodes the
features, and trains a small multi-layer perceptron built with
``chainer.Sequential`` as a binary classifier (sigmoid cross entropy, binary
accuracy) with a Trainer, an Evaluator, a computational-graph dump, snapshots,
a log, two plots and a printed report. At the end it predicts one mushroom of
the validation set.

The data is not shipped with Chainer. Get ``mushrooms.csv`` from Kaggle
("Mushroom Classification", https://www.kaggle.com/datasets/uciml/mushroom-classification)
or the UCI Mushroom data set (https://archive.ics.uci.edu/dataset/73/mushroom,
file ``agaricus-lepiota.data``, which has no header line), then run::

    python glance.py --data path/to/mushrooms.csv

With no ``--data`` the script reads ``mushrooms.csv`` in the current directory.
"""

import argparse
import csv
import os

import numpy as np

import chainer as ch
import chainer.functions as F
import chainer.links as L
from chainer import datasets
from chainer import training
from chainer.training import extensions

# The header line of Kaggle's mushrooms.csv. UCI's agaricus-lepiota.data has
# the same columns in the same order, without the header.
HEADER = (
    "class,cap-shape,cap-surface,cap-color,bruises,odor,gill-attachment,"
    "gill-spacing,gill-size,gill-color,stalk-shape,stalk-root,"
    "stalk-surface-above-ring,stalk-surface-below-ring,stalk-color-above-ring,"
    "stalk-color-below-ring,veil-type,veil-color,ring-number,ring-type,"
    "spore-print-color,population,habitat"
)
COLUMNS = HEADER.split(",")

WHERE_TO_GET = (
    "Download mushrooms.csv from Kaggle "
    "(https://www.kaggle.com/datasets/uciml/mushroom-classification) or "
    "agaricus-lepiota.data from the UCI Mushroom data set "
    "(https://archive.ics.uci.edu/dataset/73/mushroom), then pass it with "
    "--data PATH (or put mushrooms.csv in the current directory)."
)


def load_mushrooms(path):
    """Reads the mushrooms CSV and one-hot encodes it.

    Args:
        path (str): The CSV file: Kaggle's ``mushrooms.csv`` (with its header
            line) or UCI's ``agaricus-lepiota.data`` (no header).

    Returns:
        tuple: ``(X, Y)``, the float32 one-hot features of shape ``(N, D)``
        and the int32 labels of shape ``(N, 1)`` (1 for poisonous).

    Raises:
        ValueError: The file does not have the mushrooms columns.
    """
    with open(path, newline="") as f:
        rows = [row for row in csv.reader(f) if row]
    if not rows:
        raise ValueError("the file is empty")
    if [name.strip() for name in rows[0]] == COLUMNS:
        rows = rows[1:]
        first_line = 2
    elif len(rows[0]) == len(COLUMNS) and rows[0][0] in ("e", "p"):
        first_line = 1  # UCI's file: data from the first line on
    else:
        raise ValueError(
            f"the first line is not the mushrooms header; expected "
            f"{len(COLUMNS)} columns:\n  {HEADER}"
        )
    for lineno, row in enumerate(rows, first_line):
        if len(row) != len(COLUMNS):
            raise ValueError(
                f"line {lineno} has {len(row)} fields, expected {len(COLUMNS)}"
            )
        if row[0] not in ("e", "p"):
            raise ValueError(f"line {lineno}: class {row[0]!r} is not 'e' or 'p'")
    if not rows:
        raise ValueError("the file has no data lines")

    data = np.array(rows, dtype=str)
    # One-hot encoding: one input per (feature, value) pair seen in the file.
    # Mushroom features are categories, so their letter codes have no order.
    columns = []
    for col in range(1, data.shape[1]):
        values, index = np.unique(data[:, col], return_inverse=True)
        columns.append(np.eye(len(values), dtype=np.float32)[index])
    X = np.concatenate(columns, axis=1)
    Y = (data[:, 0] == "p").astype(np.int32)[:, None]
    return X, Y


def MLP(n_units, n_out):
    """Builds the network: two ReLU hidden layers and a linear output.

    Args:
        n_units (int): Units of each hidden layer.
        n_out (int): Number of outputs.

    Returns:
        chainer.Sequential: The network. Its input size is found on the first
        call.
    """
    layer = ch.Sequential(L.Linear(n_units), F.relu)
    model = layer.repeat(2)
    model.append(L.Linear(n_out))
    return model


def positive_int(text):
    """Argument type of counts such as ``--epoch``: an integer of at least 1."""
    if not text.strip().isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return int(text)


def main(argv=None):
    """Trains the mushroom classifier.

    Args:
        argv (list of str): Command-line arguments; ``sys.argv[1:]`` if None.

    Returns:
        dict: The last LogReport entry (``'validation/main/accuracy'`` etc.).
    """
    parser = argparse.ArgumentParser(
        description="Chainer at a glance: classify mushrooms as edible or poisonous"
    )
    parser.add_argument(
        "--data",
        default=None,
        help="mushrooms CSV file (default: mushrooms.csv in the current directory)",
    )
    parser.add_argument(
        "--device",
        "-d",
        default="@numpy",
        help="device: @numpy, @cupy:0 or an integer (-1 is the CPU)",
    )
    parser.add_argument(
        "--epoch", "-e", type=positive_int, default=20, help="number of epochs to train"
    )
    parser.add_argument(
        "--batchsize",
        "-b",
        type=positive_int,
        default=100,
        help="examples in each minibatch",
    )
    parser.add_argument(
        "--unit", "-u", type=positive_int, default=44, help="units in each hidden layer"
    )
    parser.add_argument(
        "--lr", type=float, default=0.01, help="learning rate of the SGD optimizer"
    )
    parser.add_argument(
        "--frequency",
        "-f",
        type=int,
        default=-1,
        help="take a snapshot every this many epochs (default: at the end)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="random seed (split, weights, order)"
    )
    parser.add_argument("--out", "-o", default="result", help="output directory")
    parser.add_argument("--resume", "-r", default=None, help="snapshot to resume")
    args = parser.parse_args(argv)
    if args.resume is not None and not os.path.exists(args.resume):
        parser.error(f"--resume: no such file: {args.resume}")

    path = args.data or "mushrooms.csv"
    try:
        X, Y = load_mushrooms(path)
    except FileNotFoundError:
        if args.data is None:
            parser.error(f"no mushrooms.csv in the current directory. {WHERE_TO_GET}")
        parser.error(f"--data {path}: no such file. {WHERE_TO_GET}")
    except OSError as e:
        parser.error(f"cannot read {path}: {e.strerror}")
    except (ValueError, csv.Error) as e:
        parser.error(f"{path} is not the mushrooms CSV: {e}")

    try:
        device = ch.get_device(args.device)
    except (ValueError, RuntimeError) as e:
        parser.error(f"--device {args.device}: {e}")
    device.use()
    np.random.seed(args.seed)

    print(f"Device: {device}")
    print(f"Data: {path} ({len(X)} mushrooms, {X.shape[1]} one-hot inputs)")
    print(f"# unit: {args.unit}")
    print(f"# minibatch-size: {args.batchsize}")
    print(f"# epoch: {args.epoch}")
    print("")

    # 70% for training, the rest for validation.
    train, test = datasets.split_dataset_random(
        datasets.TupleDataset(X, Y), int(len(X) * 0.7), seed=args.seed
    )
    train_iter = ch.iterators.SerialIterator(train, args.batchsize)
    test_iter = ch.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )

    # One output: its sign says poisonous (>= 0) or edible (< 0).
    model = L.Classifier(
        MLP(args.unit, 1), lossfun=F.sigmoid_cross_entropy, accfun=F.binary_accuracy
    )
    model.to_device(device)
    optimizer = ch.optimizers.SGD(lr=args.lr).setup(model)

    updater = training.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    # The "main" refers to the target link of the "main" optimizer.
    trainer.extend(extensions.DumpGraph("main/loss"))
    frequency = args.epoch if args.frequency == -1 else max(1, args.frequency)
    trainer.extend(extensions.snapshot(), trigger=(frequency, "epoch"))
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    trainer.extend(
        extensions.PlotReport(
            ["main/loss", "validation/main/loss"], "epoch", filename="loss.png"
        )
    )
    trainer.extend(
        extensions.PlotReport(
            ["main/accuracy", "validation/main/accuracy"],
            "epoch",
            filename="accuracy.png",
        )
    )
    trainer.extend(
        extensions.PrintReport(
            [
                "epoch",
                "main/loss",
                "validation/main/loss",
                "main/accuracy",
                "validation/main/accuracy",
                "elapsed_time",
            ]
        )
    )

    if args.resume is not None:
        try:
            ch.serializers.load_npz(args.resume, trainer)
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"--resume: {error}")

    trainer.run()

    # Inference: only the predictor is needed to classify a mushroom.
    x, t = test[np.random.randint(len(test))]
    with ch.using_config("train", False), ch.no_backprop_mode():
        predict = model.predictor(device.send(x[None])).array
    predicted = "Poisonous" if float(predict[0][0]) >= 0 else "Edible"
    print(f"Predicted {predicted}, Actual {['Edible', 'Poisonous'][t[0]]}")
    return log_report.log[-1] if log_report.log else {}


if __name__ == "__main__":
    main()
