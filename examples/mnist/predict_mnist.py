#!/usr/bin/env python
"""Classifies one test image with a model saved by the MNIST examples.

A trained model is used like this: build the same network, fill its
parameters from the saved file with ``chainer.serializers.load_npz`` and call
it on a batch of one image. The file can be a ``model_iter_N`` written by
``train_mnist.py`` (a ``snapshot_object`` of the predictor) or the
``mlp.model`` of ``train_mnist_custom_loop.py``.

Run::

    python predict_mnist.py result/model_iter_3000
    python predict_mnist.py result/model_iter_3000 --index 7 --image 7.png
"""

import argparse
import os

import numpy

import chainer
import chainer.functions as F

import train_mnist


def main(argv=None):
    """Classifies one test image; returns the predicted and the true label."""
    parser = argparse.ArgumentParser(
        description="Chainer example: classify a test image with a saved MLP"
    )
    parser.add_argument("model", help="model file, e.g. result/model_iter_3000")
    parser.add_argument(
        "--index",
        "-i",
        type=int,
        default=0,
        help="which test image to classify (default: %(default)s)",
    )
    parser.add_argument(
        "--unit",
        "-u",
        type=train_mnist.positive_int,
        default=1000,
        help="number of units in each hidden layer, as in training "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--dataset",
        choices=("fashion-mnist", "mnist"),
        default="fashion-mnist",
        help="the dataset the model was trained on (default: %(default)s)",
    )
    parser.add_argument("--image", help="also save the image to this PNG file")
    args = parser.parse_args(argv)
    if not os.path.isfile(args.model):
        parser.error(f"no such model file: {args.model}")

    _, test = train_mnist.get_dataset(args.dataset)
    if not 0 <= args.index < len(test):
        parser.error(f"--index must be in [0, {len(test)})")
    if args.dataset == "fashion-mnist":
        names = chainer.datasets.get_fashion_mnist_labels()
    else:
        names = [str(i) for i in range(10)]

    model = train_mnist.MLP(args.unit, 10)
    try:
        chainer.serializers.load_npz(args.model, model)
    except (KeyError, ValueError) as e:
        parser.error(
            f"{args.model} does not fit an MLP with --unit {args.unit} "
            f"(a model_iter_N or mlp.model file is expected): {e}"
        )

    x, t = test[args.index]
    if args.image is not None:
        try:
            from matplotlib import pyplot as plt
        except ImportError:
            parser.error("--image needs matplotlib (pip install matplotlib)")
        plt.imsave(args.image, x.reshape(28, 28), cmap="gray")
        print(f"saved the image to {args.image}")

    # The model takes a minibatch: (784,) -> (1, 784).
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        y = model(x[None, ...])
    probabilities = F.softmax(y).array[0]
    predicted = int(numpy.argmax(probabilities))
    print(f"label: {t} ({names[t]})")
    print(
        f"predicted label: {predicted} ({names[predicted]}), "
        f"probability {probabilities[predicted]:.3f}"
    )
    return predicted, int(t)


if __name__ == "__main__":
    main()
