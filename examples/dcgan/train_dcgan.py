#!/usr/bin/env python
"""Trains a DCGAN (deep convolutional generative adversarial network).

A generator learns to turn noise vectors into images and a discriminator
learns to tell its images from real ones; ``DCGANUpdater`` (``updater.py``)
updates the two in turn with their own Adam optimizers. Every
``--snapshot_interval`` iterations the trainer saves a snapshot, the two
models, and a 10x10 grid of generated images (``visualize.py``) as
``<out>/preview/image<iteration>.png``.

The default data is Fashion-MNIST, found offline when Debian's or Ubuntu's
``dataset-fashion-mnist`` package is installed; ``--dataset cifar10``
downloads CIFAR-10, and ``--image_dir`` reads your own 32x32 RGB images.
The default networks are narrower than the paper's (``--ch 64`` instead of
512) and train on a subset of the images, so that a CPU run takes minutes.

Run::

    python train_dcgan.py
    python train_dcgan.py --dataset cifar10 --ch 512 --device @cupy:0
    python train_dcgan.py --resume result/snapshot_iter_1000 --epoch 20
"""

import argparse
import os
import sys

import numpy

import chainer
from chainer import training
from chainer.training import extensions

import net
import updater
import visualize

FASHION_MNIST_HINT = (
    "Fashion-MNIST was not found. On Debian or Ubuntu install it with\n"
    "    sudo apt-get install dataset-fashion-mnist\n"
    "or connect this machine to the network so that it can be downloaded."
)
CIFAR10_HINT = (
    "CIFAR-10 is downloaded on the first run (about 170 MB): connect this "
    "machine to the network, or use --dataset fashion-mnist."
)


def load_images(parser, args):
    """Returns the training images, pixel values in [0, 255], shape (N, C, H, W).

    Args:
        parser (argparse.ArgumentParser): For error messages.
        args (argparse.Namespace): The parsed arguments.

    Returns:
        A dataset of ``float32`` images.
    """
    if args.image_dir is not None:
        if not os.path.isdir(args.image_dir):
            parser.error(f"--image_dir {args.image_dir}: no such directory")
        names = sorted(
            name
            for name in os.listdir(args.image_dir)
            if name.lower().endswith((".png", ".jpg", ".jpeg"))
        )
        if not names:
            parser.error(f"--image_dir {args.image_dir}: no PNG or JPEG images")
        train = chainer.datasets.ImageDataset(names, root=args.image_dir)
        if train[0].shape != (3, 32, 32):
            parser.error(
                f"--image_dir: the images must be 32x32 RGB, {names[0]} has shape "
                f"{train[0].shape} (channels, height, width)"
            )
        return train
    try:
        if args.dataset == "cifar10":
            train, _ = chainer.datasets.get_cifar10(withlabel=False, scale=255.0)
        else:
            train, _ = chainer.datasets.get_fashion_mnist(
                withlabel=False, ndim=3, scale=255.0
            )
    except OSError as e:
        hint = FASHION_MNIST_HINT if args.dataset == "fashion-mnist" else CIFAR10_HINT
        sys.exit(f"{e}\n\n{hint}")
    if args.train_size is not None and args.train_size < len(train):
        order = numpy.random.RandomState(0).permutation(len(train))
        train = train[order[: args.train_size]]
    return train


def positive_int(text):
    """Argument type of counts such as ``--epoch``: an integer of at least 1."""
    if not text.strip().isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return int(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Chainer example: DCGAN")
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
        default=10,
        help="Number of sweeps over the data",
    )
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="@numpy",
        help="Device: @numpy, @cupy:N, or an integer (-1 for the CPU)",
    )
    parser.add_argument(
        "--dataset",
        choices=("fashion-mnist", "cifar10"),
        default="fashion-mnist",
        help="Dataset (cifar10 is downloaded on the first run)",
    )
    parser.add_argument(
        "--image_dir",
        "-i",
        default=None,
        help="Train on the 32x32 RGB PNG/JPEG images in this directory instead",
    )
    parser.add_argument(
        "--train-size",
        type=int,
        default=5000,
        help="Train on this many images of the dataset (0: all)",
    )
    parser.add_argument("--out", "-o", default="result", help="Output directory")
    parser.add_argument(
        "--resume", "-r", default=None, help="Resume from this trainer snapshot"
    )
    parser.add_argument(
        "--n_hidden",
        "-n",
        type=positive_int,
        default=100,
        help="Size of the noise vectors",
    )
    parser.add_argument(
        "--ch",
        type=int,
        default=64,
        help="Channels of the widest layer (the paper and Chainer use 512)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="Seed of the noise of the preview images"
    )
    parser.add_argument(
        "--snapshot_interval",
        type=positive_int,
        default=500,
        help="Iterations between snapshots and preview images",
    )
    parser.add_argument(
        "--display_interval",
        type=positive_int,
        default=50,
        help="Iterations between log entries",
    )
    args = parser.parse_args(argv)
    if args.resume is not None and not os.path.exists(args.resume):
        parser.error(f"--resume: no such file: {args.resume}")
    if args.ch < 8 or args.ch % 8:
        parser.error("--ch must be a positive multiple of 8")
    if args.train_size < 0:
        parser.error("--train-size must not be negative")
    args.train_size = args.train_size or None
    try:
        device = chainer.get_device(args.device)
    except (ValueError, RuntimeError) as e:
        parser.error(f"--device {args.device}: {e}")

    print(f"Device: {device}")
    print(f"# Minibatch-size: {args.batchsize}")
    print(f"# n_hidden: {args.n_hidden}")
    print(f"# epoch: {args.epoch}")
    print("")

    train = load_images(parser, args)
    channels, size = train[0].shape[0], train[0].shape[-1]
    print(f"# training images: {len(train)} of {channels}x{size}x{size}")

    device.use()
    gen = net.Generator(
        n_hidden=args.n_hidden, ch=args.ch, out_channels=channels, size=size
    )
    dis = net.Discriminator(ch=args.ch, in_channels=channels)
    gen.to_device(device)
    dis.to_device(device)

    def make_optimizer(model, alpha=0.0002, beta1=0.5):
        optimizer = chainer.optimizers.Adam(alpha=alpha, beta1=beta1)
        optimizer.setup(model)
        optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(0.0001), "hook_dec")
        return optimizer

    opt_gen = make_optimizer(gen)
    opt_dis = make_optimizer(dis)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    gan_updater = updater.DCGANUpdater(
        models=(gen, dis),
        iterator=train_iter,
        optimizer={"gen": opt_gen, "dis": opt_dis},
        device=device,
    )
    trainer = training.Trainer(gan_updater, (args.epoch, "epoch"), out=args.out)

    snapshot_interval = (args.snapshot_interval, "iteration")
    display_interval = (args.display_interval, "iteration")
    trainer.extend(
        extensions.snapshot(filename="snapshot_iter_{.updater.iteration}"),
        trigger=snapshot_interval,
    )
    trainer.extend(
        extensions.snapshot_object(gen, "gen_iter_{.updater.iteration}"),
        trigger=snapshot_interval,
    )
    trainer.extend(
        extensions.snapshot_object(dis, "dis_iter_{.updater.iteration}"),
        trigger=snapshot_interval,
    )
    trainer.extend(extensions.LogReport(trigger=display_interval))
    trainer.extend(
        extensions.PrintReport(["epoch", "iteration", "gen/loss", "dis/loss"]),
        trigger=display_interval,
    )
    trainer.extend(extensions.ProgressBar(update_interval=10))
    trainer.extend(
        visualize.out_generated_image(gen, dis, 10, 10, args.seed, args.out),
        trigger=snapshot_interval,
    )

    if args.resume is not None:
        try:
            chainer.serializers.load_npz(args.resume, trainer)
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"--resume: {error}")

    trainer.run()
    return trainer.get_extension("LogReport").log


if __name__ == "__main__":
    main()
