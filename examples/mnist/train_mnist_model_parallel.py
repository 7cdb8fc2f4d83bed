#!/usr/bin/env python
"""Trains a model split over two devices (model parallelism) on Fashion-MNIST.

``ParallelMLP`` keeps two halves of a wide network on two devices. Each half
is a pair of the MNIST example's MLPs; the halves exchange their hidden
activations once in the middle and once at the output. ``F.copy`` moves a
Variable to the other device and, in the backward pass, moves its gradient
back, so the whole network trains as one model with one optimizer.

Both devices are the CPU by default (the halves then run one after the
other); on two GPUs they run concurrently.

Run::

    python train_mnist_model_parallel.py
    python train_mnist_model_parallel.py --device0 @cupy:0 --device1 @cupy:1
"""

import argparse
import os

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

import train_mnist


class ParallelMLP(chainer.Chain):
    """An MLP whose two halves live on two devices.

    Args:
        n_units (int): Width of the hidden representation the halves share;
            each half's MLPs have ``n_units // 2`` units per hidden layer.
        n_out (int): Number of outputs (classes).
        device0: Device of the first half, where the input and the output
            live.
        device1: Device of the second half.
    """

    def __init__(self, n_units, n_out, device0, device1):
        super().__init__()
        self.device0 = chainer.get_device(device0)
        self.device1 = chainer.get_device(device1)
        with self.init_scope():
            # The input sizes (784, then n_units) are inferred.
            self.first0 = train_mnist.MLP(n_units // 2, n_units)
            self.first1 = train_mnist.MLP(n_units // 2, n_units)
            self.second0 = train_mnist.MLP(n_units // 2, n_out)
            self.second1 = train_mnist.MLP(n_units // 2, n_out)
        self.first0.to_device(self.device0)
        self.second0.to_device(self.device0)
        self.first1.to_device(self.device1)
        self.second1.to_device(self.device1)

    def forward(self, x):
        # x is on device0.
        z0 = self.first0(x)
        z1 = self.first1(F.copy(x, self.device1))
        # Exchange the hidden activations between the devices.
        h0 = F.relu(z0 + F.copy(z1, self.device0))
        h1 = F.relu(z1 + F.copy(z0, self.device1))
        y0 = self.second0(h0)
        y1 = self.second1(h1)
        # Gather the output on device0.
        return y0 + F.copy(y1, self.device0)


def main(argv=None):
    """Trains ParallelMLP; returns the last LogReport entry."""
    parser = argparse.ArgumentParser(
        description="Chainer example: a model-parallel MLP on Fashion-MNIST or "
        "MNIST, split over two devices"
    )
    parser.add_argument(
        "--batchsize",
        "-b",
        type=train_mnist.positive_int,
        default=100,
        help="number of images in each mini-batch (default: %(default)s)",
    )
    parser.add_argument(
        "--epoch",
        "-e",
        type=train_mnist.positive_int,
        default=5,
        help="number of sweeps over the dataset to train (default: %(default)s)",
    )
    parser.add_argument(
        "--device0",
        default="@numpy",
        help="device of the first half, the input and the output "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--device1",
        default="@numpy",
        help="device of the second half (default: %(default)s)",
    )
    parser.add_argument(
        "--out",
        "-o",
        default="result_model_parallel",
        help="directory to write the results to (default: %(default)s)",
    )
    parser.add_argument(
        "--resume", "-r", help="resume the training from this trainer snapshot"
    )
    parser.add_argument(
        "--unit",
        "-u",
        type=train_mnist.positive_int,
        default=500,
        help="width of the representation the halves share (default: %(default)s)",
    )
    parser.add_argument(
        "--dataset",
        choices=("fashion-mnist", "mnist"),
        default="fashion-mnist",
        help="fashion-mnist (offline from Debian's dataset-fashion-mnist) or "
        "mnist (downloaded) (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    if args.resume is not None and not os.path.exists(args.resume):
        parser.error(f"--resume: no such file: {args.resume}")

    try:
        device0 = chainer.get_device(args.device0)
        device1 = chainer.get_device(args.device1)
    except (ValueError, RuntimeError) as e:
        parser.error(f"--device0/--device1: {e}")
    print(f"Devices: {device0}, {device1}")
    print(f"Dataset: {args.dataset}")
    print(f"# unit: {args.unit}")
    print(f"# Minibatch-size: {args.batchsize}")
    print(f"# epoch: {args.epoch}")
    print("")

    train, test = train_mnist.get_dataset(args.dataset)

    # The model is already spread over the devices: it is not moved as a
    # whole, and the updater sends the minibatches to device0.
    model = L.Classifier(ParallelMLP(args.unit, 10, device0, device1))
    device0.use()
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device0)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    trainer.extend(extensions.Evaluator(test_iter, model, device=device0))
    trainer.extend(extensions.DumpGraph("main/loss"))
    trainer.extend(
        extensions.snapshot(n_retains=1),
        trigger=(1, "epoch"),
    )
    log_report = extensions.LogReport()
    trainer.extend(log_report)
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
