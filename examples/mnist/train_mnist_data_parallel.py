#!/usr/bin/env python
"""Trains the MNIST example's MLP data-parallel on two devices.

``ParallelUpdater`` copies the model to a second device, splits each
minibatch between the two copies, adds the second copy's gradients to the
main model's, updates the main model and copies its parameters back. The rest
is the Trainer of ``train_mnist.py``.

Both devices are the CPU by default, which runs the two halves one after the
other (the same result as one device, for showing the mechanics); on two GPUs
they run concurrently.

Run::

    python train_mnist_data_parallel.py                         # 2 CPU copies
    python train_mnist_data_parallel.py --devices @cupy:0,@cupy:1
"""

import argparse
import os

import chainer
import chainer.links as L
from chainer import training
from chainer.training import extensions

import train_mnist


def main(argv=None):
    """Trains the MLP on two devices; returns the last LogReport entry."""
    parser = argparse.ArgumentParser(
        description="Chainer example: data-parallel training of an MLP on "
        "Fashion-MNIST or MNIST with ParallelUpdater"
    )
    parser.add_argument(
        "--batchsize",
        "-b",
        type=train_mnist.positive_int,
        default=100,
        help="number of images in each mini-batch, split between the devices "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--epoch",
        "-e",
        type=train_mnist.positive_int,
        default=5,
        help="number of sweeps over the dataset to train (default: %(default)s)",
    )
    parser.add_argument(
        "--devices",
        "-d",
        default="@numpy,@numpy",
        help="the two devices, comma-separated; the first one holds the main "
        "model (default: %(default)s)",
    )
    parser.add_argument(
        "--out",
        "-o",
        default="result_data_parallel",
        help="directory to write the results to (default: %(default)s)",
    )
    parser.add_argument(
        "--resume", "-r", help="resume the training from this trainer snapshot"
    )
    parser.add_argument(
        "--unit",
        "-u",
        type=train_mnist.positive_int,
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
    args = parser.parse_args(argv)
    if args.resume is not None and not os.path.exists(args.resume):
        parser.error(f"--resume: no such file: {args.resume}")
    names = args.devices.split(",")
    if len(names) != 2:
        parser.error(f"--devices needs two devices, got {args.devices!r}")

    try:
        devices = [chainer.get_device(name) for name in names]
    except (ValueError, RuntimeError) as e:
        parser.error(f"--devices {args.devices}: {e}")
    print(f"Devices: {devices[0]}, {devices[1]}")
    print(f"Dataset: {args.dataset}")
    print(f"# unit: {args.unit}")
    print(f"# Minibatch-size: {args.batchsize}")
    print(f"# epoch: {args.epoch}")
    print("")

    train, test = train_mnist.get_dataset(args.dataset)

    model = L.Classifier(train_mnist.MLP(args.unit, 10))
    devices[0].use()
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )

    # The updater sends the model to the 'main' device and a copy of it to
    # the 'second' one.
    updater = training.updaters.ParallelUpdater(
        train_iter,
        optimizer,
        devices={"main": devices[0], "second": devices[1]},
    )
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    trainer.extend(extensions.Evaluator(test_iter, model, device=devices[0]))
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
