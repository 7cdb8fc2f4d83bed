"""Fits a small MLP to a noisy sine curve with chainer-core alone.

Shows the pieces the core distribution provides: Variables and define-by-run
autograd, a Chain holding Parameters, an optimizer, and npz serialization. The
ReLU and the loss are written with Variable operators because the function
catalogue (``chainer.functions``) lives in the separate chainer-links package.

Run: ``python examples/demo_core.py [--epochs N]``.
"""

import argparse
import os
import tempfile

import numpy

import chainer
from chainer import optimizers
from chainer import serializers


class MLP(chainer.Chain):
    """Two hidden layers of ``n_units`` ReLU units, one output."""

    def __init__(self, n_units=64):
        super().__init__()
        with self.init_scope():
            self.W1 = chainer.Parameter(chainer.initializers.HeNormal(), (n_units, 1))
            self.b1 = chainer.Parameter(0.0, (n_units,))
            self.W2 = chainer.Parameter(
                chainer.initializers.HeNormal(), (n_units, n_units)
            )
            self.b2 = chainer.Parameter(0.0, (n_units,))
            self.W3 = chainer.Parameter(
                chainer.initializers.LeCunNormal(), (1, n_units)
            )
            self.b3 = chainer.Parameter(0.0, (1,))

    @staticmethod
    def relu(h):
        return h * (h.array > 0).astype(h.dtype)

    def forward(self, x):
        h = self.relu(x @ self.W1.T + self.b1)
        h = self.relu(h @ self.W2.T + self.b2)
        return h @ self.W3.T + self.b3


def make_data(n, rng):
    x = rng.uniform(-numpy.pi, numpy.pi, (n, 1)).astype(numpy.float32)
    y = (numpy.sin(x) + rng.normal(0, 0.05, (n, 1))).astype(numpy.float32)
    return x, y


def positive_int(text):
    """Argument type of counts such as ``--epoch``: an integer of at least 1."""
    if not text.strip().isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return int(text)


def main(argv=None):
    """Trains the MLP, then saves and restores it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=positive_int, default=100)
    parser.add_argument("--batchsize", type=positive_int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rng = numpy.random.default_rng(args.seed)
    numpy.random.seed(args.seed)
    x_train, y_train = make_data(1024, rng)
    x_test, y_test = make_data(256, rng)

    model = MLP()
    optimizer = optimizers.Adam(alpha=0.01)
    optimizer.setup(model)

    def mse(x, t):
        diff = model(x) - t
        return (diff * diff).mean()

    n = len(x_train)
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(n)
        total = 0.0
        for i in range(0, n, args.batchsize):
            idx = order[i : i + args.batchsize]
            loss = mse(x_train[idx], y_train[idx])
            model.cleargrads()
            loss.backward()
            optimizer.update()
            total += float(loss.array) * len(idx)
        if epoch == 1 or epoch % 20 == 0:
            with chainer.no_backprop_mode():
                test = float(mse(x_test, y_test).array)
            print(f"epoch {epoch:4d}  train mse {total / n:.5f}  test mse {test:.5f}")

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "mlp.npz")
        serializers.save_npz(path, model)
        restored = MLP()
        serializers.load_npz(path, restored)
        with chainer.no_backprop_mode():
            same = numpy.allclose(restored(x_test).array, model(x_test).array)
    print(f"saved and restored the model: predictions identical = {same}")


if __name__ == "__main__":
    main()
