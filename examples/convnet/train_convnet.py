#!/usr/bin/env python
"""Trains a convolutional network (LeNet5, a small VGG or ResNet) on images.

The models come from the tutorial "Convolutional Network for Visual
Recognition Tasks" (see ``models.py``): LeNet5 written as a ``Chain``, a VGG
built from a ``ChainList`` of ``VGGBlock`` chains, and a ResNet whose stages
are ``ChainList``s of ``BottleNeck`` chains with batch normalization. The
model is wrapped in ``L.Classifier`` and trained with a ``Trainer``: an
``Evaluator`` on the test set, a log, a printed table, a progress bar, loss
and accuracy plots, a snapshot per epoch and ``--resume``.

The default data is Fashion-MNIST, which Debian and Ubuntu ship in the
``dataset-fashion-mnist`` package (found offline); ``--dataset cifar10``
downloads CIFAR-10 on the first run.

Run::

    python train_convnet.py                      # LeNet5, Fashion-MNIST
    python train_convnet.py --arch resnet --epoch 2 --train-size 10000
    python train_convnet.py --resume result/snapshot_iter_1200
"""

import argparse
import os
import sys

import numpy

import chainer
import chainer.links as L
from chainer import training
from chainer.training import extensions

import models

DATASETS = ("fashion-mnist", "cifar10")
FASHION_MNIST_HINT = (
    "Fashion-MNIST was not found. On Debian or Ubuntu install it with\n"
    "    sudo apt-get install dataset-fashion-mnist\n"
    "or connect this machine to the network so that it can be downloaded."
)
CIFAR10_HINT = (
    "CIFAR-10 is downloaded on the first run (about 170 MB): connect this "
    "machine to the network, or use --dataset fashion-mnist."
)


def get_dataset(name):
    """Returns ``(train, test, class_names)`` of a labelled image dataset.

    Args:
        name (str): ``'fashion-mnist'`` (1x28x28 images) or ``'cifar10'``
            (3x32x32 images).

    Returns:
        tuple: Two ``TupleDataset``s of ``(image, label)`` and a list of the
        ten class names.
    """
    if name == "fashion-mnist":
        train, test = chainer.datasets.get_fashion_mnist(ndim=3)
        return train, test, chainer.datasets.get_fashion_mnist_labels()
    train, test = chainer.datasets.get_cifar10()
    names = "airplane automobile bird cat deer dog frog horse ship truck"
    return train, test, names.split()


def positive_int(text):
    """Argument type of counts such as ``--epoch``: an integer of at least 1."""
    if not text.strip().isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return int(text)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Chainer example: convolutional networks for image classes"
    )
    parser.add_argument(
        "--arch",
        "-a",
        choices=sorted(models.ARCHS),
        default="lenet5",
        help="Network architecture",
    )
    parser.add_argument(
        "--dataset",
        choices=DATASETS,
        default="fashion-mnist",
        help="Dataset (cifar10 is downloaded on the first run)",
    )
    parser.add_argument(
        "--batchsize",
        "-b",
        type=positive_int,
        default=50,
        help="Images in each minibatch",
    )
    parser.add_argument(
        "--epoch",
        "-e",
        type=positive_int,
        default=8,
        help="Number of sweeps over the data",
    )
    parser.add_argument(
        "--train-size",
        type=positive_int,
        default=None,
        help="Train on a random subset of this many images (default: all)",
    )
    parser.add_argument(
        "--learnrate", "-l", type=float, default=0.002, help="Adam's alpha"
    )
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="@numpy",
        help="Device: @numpy, @cupy:N, or an integer (-1 for the CPU)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="Random seed (weights and shuffling)"
    )
    parser.add_argument("--out", "-o", default="result", help="Output directory")
    parser.add_argument(
        "--resume", "-r", default=None, help="Resume from this trainer snapshot"
    )
    args = parser.parse_args(argv)
    if args.resume is not None and not os.path.exists(args.resume):
        parser.error(f"--resume: no such file: {args.resume}")
    try:
        device = chainer.get_device(args.device)
    except (ValueError, RuntimeError) as e:
        parser.error(f"--device {args.device}: {e}")

    print(f"Device: {device}")
    print(f"# Architecture: {args.arch}")
    print(f"# Dataset: {args.dataset}")
    print(f"# Minibatch-size: {args.batchsize}")
    print(f"# epoch: {args.epoch}")
    print("")

    try:
        train, test, class_names = get_dataset(args.dataset)
    except OSError as e:
        hint = FASHION_MNIST_HINT if args.dataset == "fashion-mnist" else CIFAR10_HINT
        sys.exit(f"{e}\n\n{hint}")
    if args.train_size is not None and args.train_size < len(train):
        train, _ = chainer.datasets.split_dataset_random(train, args.train_size, 0)
    print(f"# train images: {len(train)}, test images: {len(test)}")

    numpy.random.seed(args.seed)
    device.use()
    model = L.Classifier(models.ARCHS[args.arch](n_classes=len(class_names)))
    model.to_device(device)
    optimizer = chainer.optimizers.Adam(alpha=args.learnrate)
    optimizer.setup(model)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )
    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    trainer.extend(extensions.DumpGraph("main/loss"))
    trainer.extend(
        extensions.snapshot(filename="snapshot_iter_{.updater.iteration}"),
        trigger=(1, "epoch"),
    )
    trainer.extend(extensions.LogReport())
    trainer.extend(
        extensions.PlotReport(
            ["main/loss", "validation/main/loss"], "epoch", file_name="loss.png"
        )
    )
    trainer.extend(
        extensions.PlotReport(
            ["main/accuracy", "validation/main/accuracy"],
            "epoch",
            file_name="accuracy.png",
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
    trainer.extend(extensions.ProgressBar())

    if args.resume is not None:
        try:
            chainer.serializers.load_npz(args.resume, trainer)
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"--resume: {error}")

    trainer.run()

    chainer.serializers.save_npz(f"{args.out}/model.npz", model.predictor)
    print(f"Saved the trained {args.arch} to {args.out}/model.npz")

    # What the trained network says about the first test images.
    x, t = chainer.dataset.concat_examples(test[:5], device)
    cpu = chainer.get_device("@numpy")
    probs = cpu.send(models.predict(model.predictor, x).array)
    t = cpu.send(t)
    for p, label in zip(probs, t, strict=True):
        guess = int(p.argmax())
        print(
            f"  true: {class_names[label]:<12} predicted: "
            f"{class_names[guess]:<12} ({p[guess]:.0%})"
        )
    return trainer.get_extension("LogReport").log[-1]


if __name__ == "__main__":
    main()
