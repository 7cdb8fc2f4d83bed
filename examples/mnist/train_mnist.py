#!/usr/bin/env python
"""Trains a multi-layer perceptron on Fashion-MNIST (or MNIST) with a Trainer.

The example shows the training loop Chainer writes for you: a model wrapped in
``L.Classifier``, an optimizer, iterators, a ``StandardUpdater`` and a
``Trainer`` with the usual extensions: ``Evaluator`` (validation loss and
accuracy), ``LogReport``, ``PrintReport``, ``ProgressBar``, ``PlotReport``
(``loss.png`` and ``accuracy.png``), ``snapshot`` (resume with ``--resume``),
``snapshot_object`` of the predictor (for ``predict_mnist.py``) and
``DumpGraph`` (the computational graph as ``cg.dot``).

Fashion-MNIST is read offline from Debian's ``dataset-fashion-mnist`` package
(``sudo apt-get install dataset-fashion-mnist``); ``--dataset mnist`` downloads
MNIST instead.

Run::

    python train_mnist.py                      # 5 epochs on the CPU
    python train_mnist.py --device @cupy:0     # on the first GPU
    python train_mnist.py --resume result/snapshot_iter_3000 --epoch 8

Trainer snapshots are named ``snapshot_iter_<iteration>`` (``extensions.snapshot``'s
default) and the predictor's parameters ``model_iter_<iteration>``; with the
default batch size an epoch is 600 iterations.
"""

import argparse
import os

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

APT_HINT = (
    "--dataset fashion-mnist (the default) works offline once Debian's "
    "package is installed: sudo apt-get install dataset-fashion-mnist"
)


class MLP(chainer.Chain):
    """A perceptron with two hidden layers of ReLU units.

    The input size of every layer is inferred at the first forward pass.

    Args:
        n_units (int): Number of units in each hidden layer.
        n_out (int): Number of outputs (classes).
    """

    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def positive_int(text):
    """Argument type of counts such as ``--epoch``: an integer of at least 1."""
    if not text.strip().isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return int(text)


def get_dataset(name):
    """Loads the training and test sets of a dataset, or exits with a message.

    Args:
        name (str): ``'fashion-mnist'`` or ``'mnist'``.

    Returns:
        tuple: ``(train, test)``, datasets of ``(image, label)`` pairs with
        images of shape ``(784,)`` in ``[0, 1]``.
    """
    if name == "fashion-mnist":
        getter = chainer.datasets.get_fashion_mnist
    else:
        getter = chainer.datasets.get_mnist
    try:
        return getter()
    except (OSError, RuntimeError) as e:
        raise SystemExit(f"error: cannot load {name}:\n{e}\n{APT_HINT}") from None


def main(argv=None):
    """Trains the MLP with a Trainer; returns the last LogReport entry."""
    parser = argparse.ArgumentParser(
        description="Chainer example: an MLP on Fashion-MNIST or MNIST with Trainer"
    )
    parser.add_argument(
        "--batchsize",
        "-b",
        type=positive_int,
        default=100,
        help="number of images in each mini-batch (default: %(default)s)",
    )
    parser.add_argument(
        "--epoch",
        "-e",
        type=positive_int,
        default=5,
        help="number of sweeps over the dataset to train (default: %(default)s)",
    )
    parser.add_argument(
        "--device",
        "-d",
        default="@numpy",
        help="device: @numpy, @cupy:N or an integer (-1 for the CPU, N for "
        "GPU N) (default: %(default)s)",
    )
    parser.add_argument(
        "--frequency",
        "-f",
        type=positive_int,
        default=1,
        help="take a snapshot every this many epochs (default: %(default)s)",
    )
    parser.add_argument(
        "--out",
        "-o",
        default="result",
        help="directory to write the results to (default: %(default)s)",
    )
    parser.add_argument(
        "--resume", "-r", help="resume the training from this trainer snapshot"
    )
    parser.add_argument(
        "--autoload",
        action="store_true",
        help="resume from the latest snapshot in --out, if there is one",
    )
    parser.add_argument(
        "--unit",
        "-u",
        type=positive_int,
        default=1000,
        help="number of units in each hidden layer (default: %(default)s)",
    )
    parser.add_argument(
        "--dataset",
        choices=("fashion-mnist", "mnist"),
        default="fashion-mnist",
        help="fashion-mnist (offline from Debian's dataset-fashion-mnist) or "
        "mnist (downloaded) (default: %(default)s)",
    )
    parser.add_argument(
        "--noplot",
        dest="plot",
        action="store_false",
        help="do not draw loss.png and accuracy.png",
    )
    args = parser.parse_args(argv)
    if args.resume is not None and not os.path.exists(args.resume):
        parser.error(f"--resume: no such file: {args.resume}")

    try:
        device = chainer.get_device(args.device)
    except (ValueError, RuntimeError) as e:
        parser.error(f"--device {args.device}: {e}")
    print(f"Device: {device}")
    print(f"Dataset: {args.dataset}")
    print(f"# unit: {args.unit}")
    print(f"# Minibatch-size: {args.batchsize}")
    print(f"# epoch: {args.epoch}")
    print("")

    train, test = get_dataset(args.dataset)

    # L.Classifier computes the softmax cross entropy loss and the accuracy
    # of the predictor's output and reports both ('main/loss', ...).
    model = L.Classifier(MLP(args.unit, 10))
    device.use()
    model.to_device(device)

    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    # Validation loss and accuracy each epoch, and also of the initial model
    # (epoch 0 in the log and the plots). A resumed run skips that: its log
    # already has the entry.
    before_training = args.resume is None and not args.autoload
    trainer.extend(
        extensions.Evaluator(test_iter, model, device=device),
        call_before_training=before_training,
    )
    # The graph from the inputs to the loss, as Graphviz's cg.dot.
    trainer.extend(extensions.DumpGraph("main/loss"))
    # The whole trainer (model, optimizer, iterators...) for --resume, only
    # the latest one kept, and the predictor's parameters for inference.
    trainer.extend(
        extensions.snapshot(
            filename="snapshot_iter_{.updater.iteration}",
            n_retains=1,
            autoload=args.autoload,
        ),
        trigger=(args.frequency, "epoch"),
    )
    trainer.extend(
        extensions.snapshot_object(
            model.predictor, filename="model_iter_{.updater.iteration}"
        ),
        trigger=(args.frequency, "epoch"),
    )
    log_report = extensions.LogReport()
    trainer.extend(log_report, call_before_training=before_training)
    if args.plot and extensions.PlotReport.available():
        trainer.extend(
            extensions.PlotReport(
                ["main/loss", "validation/main/loss"], "epoch", file_name="loss.png"
            ),
            call_before_training=before_training,
        )
        trainer.extend(
            extensions.PlotReport(
                ["main/accuracy", "validation/main/accuracy"],
                "epoch",
                file_name="accuracy.png",
            ),
            call_before_training=before_training,
        )
    elif args.plot:
        print("matplotlib is not installed: no loss.png and accuracy.png")
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
        ),
        call_before_training=before_training,
    )
    trainer.extend(extensions.ProgressBar())

    if args.resume is not None:
        try:
            chainer.serializers.load_npz(args.resume, trainer)
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"--resume: {error}")

    trainer.run()
    return log_report.log[-1]


if __name__ == "__main__":
    main()
