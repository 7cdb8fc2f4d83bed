#!/usr/bin/env python
"""Trains the MNIST example's MLP with a training loop written by hand.

What a Trainer does for you, spelled out: take a minibatch from a
``SerialIterator``, send it to the device with ``concat_examples``, compute
the loss, ``cleargrads()``, ``backward()`` and ``optimizer.update()``. At the
end of each epoch (``train_iter.is_new_epoch``) the model is evaluated on the
test set with ``chainer.no_backprop_mode()`` and
``chainer.using_config('train', False)``, and the model, the optimizer and
the training iterator are saved with ``chainer.serializers.save_npz``;
``--resume`` loads them and continues where the run stopped.

Run::

    python train_mnist_custom_loop.py               # 5 epochs on the CPU
    python train_mnist_custom_loop.py --epoch 8 --resume result_custom_loop
    python predict_mnist.py result_custom_loop/mlp.model
"""

import argparse
import os
import time

import chainer
import chainer.functions as F
from chainer import serializers
from chainer.dataset import concat_examples

import train_mnist

# Files written to --out after every epoch and read back by --resume.
MODEL_FILE = "mlp.model"
OPTIMIZER_FILE = "mlp.state"
ITERATOR_FILE = "mlp.iterator"


def evaluate(model, test_iter, device):
    """Computes the mean loss and accuracy of a model on a dataset.

    Args:
        model (chainer.Link): Model mapping images to class scores.
        test_iter (chainer.iterators.SerialIterator): Iterator over the
            dataset without repetition; it is reset afterwards.
        device (chainer.backend.Device): Device the model lives on.

    Returns:
        tuple: Mean loss and mean accuracy (floats).
    """
    sum_loss = sum_accuracy = 0.0
    count = 0
    # No graph is needed and layers such as dropout switch to test mode.
    with chainer.no_backprop_mode(), chainer.using_config("train", False):
        for batch in test_iter:
            x, t = concat_examples(batch, device)
            y = model(x)
            sum_loss += float(F.softmax_cross_entropy(y, t).array) * len(t)
            sum_accuracy += float(F.accuracy(y, t).array) * len(t)
            count += len(t)
    test_iter.reset()
    return sum_loss / count, sum_accuracy / count


def main(argv=None):
    """Trains the MLP with a hand-written loop; returns the last epoch's results."""
    parser = argparse.ArgumentParser(
        description="Chainer example: an MLP on Fashion-MNIST or MNIST with a "
        "hand-written training loop"
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
        "--device",
        "-d",
        default="@numpy",
        help="device: @numpy, @cupy:N or an integer (-1 for the CPU, N for "
        "GPU N) (default: %(default)s)",
    )
    parser.add_argument(
        "--out",
        "-o",
        default="result_custom_loop",
        help="directory to write the model to (default: %(default)s)",
    )
    parser.add_argument(
        "--resume",
        "-r",
        help="directory of a previous run to continue (it holds "
        f"{MODEL_FILE}, {OPTIMIZER_FILE} and {ITERATOR_FILE})",
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
    if args.resume is not None:
        expected = (
            "--resume expects the --out directory of a previous run of this "
            f"script (e.g. {parser.get_default('out')})"
        )
        if os.path.isfile(args.resume):
            parser.error(f"{expected}; got a file: {args.resume}")
        if not os.path.isdir(args.resume):
            parser.error(f"{expected}; no such directory: {args.resume}")
        for name in (MODEL_FILE, OPTIMIZER_FILE, ITERATOR_FILE):
            if not os.path.isfile(os.path.join(args.resume, name)):
                parser.error(f"{expected}; {args.resume} has no {name}")

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

    train, test = train_mnist.get_dataset(args.dataset)
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )

    model = train_mnist.MLP(args.unit, 10)
    device.use()
    model.to_device(device)
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    if args.resume is not None:
        serializers.load_npz(os.path.join(args.resume, MODEL_FILE), model)
        serializers.load_npz(os.path.join(args.resume, OPTIMIZER_FILE), optimizer)
        # The iterator knows the epoch and the position in the shuffled order.
        serializers.load_npz(os.path.join(args.resume, ITERATOR_FILE), train_iter)
        print(f"Resumed from {args.resume} at epoch {train_iter.epoch}")
    os.makedirs(args.out, exist_ok=True)

    start = time.perf_counter()
    sum_loss = sum_accuracy = 0.0
    count = 0
    result = {}
    while train_iter.epoch < args.epoch:
        # One iteration: forward, backward and update on one minibatch.
        batch = train_iter.next()
        x, t = concat_examples(batch, device)
        y = model(x)
        loss = F.softmax_cross_entropy(y, t)
        model.cleargrads()
        loss.backward()
        optimizer.update()

        sum_loss += float(loss.array) * len(t)
        sum_accuracy += float(F.accuracy(y, t).array) * len(t)
        count += len(t)

        if train_iter.is_new_epoch:
            val_loss, val_accuracy = evaluate(model, test_iter, device)
            result = {
                "epoch": train_iter.epoch,
                "loss": sum_loss / count,
                "accuracy": sum_accuracy / count,
                "val_loss": val_loss,
                "val_accuracy": val_accuracy,
            }
            print(
                "epoch:{epoch:02d} train_loss:{loss:.4f} train_accuracy:"
                "{accuracy:.4f} val_loss:{val_loss:.4f} val_accuracy:"
                "{val_accuracy:.4f}".format(**result),
                f"elapsed:{time.perf_counter() - start:.1f}s",
            )
            sum_loss = sum_accuracy = 0.0
            count = 0
            # save_npz writes a temporary file and renames it: an interrupted
            # run never leaves a half-written file.
            serializers.save_npz(os.path.join(args.out, MODEL_FILE), model)
            serializers.save_npz(os.path.join(args.out, OPTIMIZER_FILE), optimizer)
            serializers.save_npz(os.path.join(args.out, ITERATOR_FILE), train_iter)

    print(f"Saved the model, the optimizer and the iterator to {args.out}")
    return result


if __name__ == "__main__":
    main()
