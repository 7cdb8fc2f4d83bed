"""MLP 784-1000-1000-10 inference, batch 1000: ``L.Linear`` and ``F.relu``.

The forward pass of ``mlp_step.py``'s network (same weights) as a user
serves it: ``chainer.using_config('train', False)`` and
``chainer.no_backprop_mode()``, the class scores' argmax at the end. Runs
unchanged on Chainer 7.8.1 and on this project (links and functions
installed). Also measures the floor: the three GEMMs in bare NumPy.

Prints one JSON line.
"""

import argparse
import itertools
import os
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing
import mlp_step

BATCH = 1000
N_BATCHES = 4


def make_inputs(seed=4):
    """Input batches in [0, 1)."""
    rng = numpy.random.RandomState(seed)
    return [
        rng.uniform(0, 1, (BATCH, mlp_step.SIZES[0])).astype(numpy.float32)
        for _ in range(N_BATCHES)
    ]


def build_model(weights):
    import chainer
    import chainer.functions as F
    import chainer.links as L

    class MLP(chainer.ChainList):
        def __init__(self):
            super().__init__()
            for W, b in weights:
                layer = L.Linear(W.shape[1], W.shape[0])
                layer.W.array[...] = W
                layer.b.array[...] = b
                self.append(layer)

        def forward(self, x):
            h = x
            for i, layer in enumerate(self):
                h = layer(h)
                if i + 1 < len(self):
                    h = F.relu(h)
            return h

    return MLP()


def bench_framework(repeats, warmup):
    import chainer

    model = build_model(mlp_step.make_weights(mlp_step.SIZES))
    inputs = make_inputs()
    labels = []

    def run():
        x = inputs[len(labels) % N_BATCHES]
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            y = model(x)
        labels.append(y.array.argmax(axis=1))

    results = {
        "inference_ms": _timing.summary(_timing.measure(run, repeats, warmup), 1e3)
    }
    results["check"] = {"label_sum": int(labels[0].sum())}
    return results


def bench_gemm_floor(repeats):
    rng = numpy.random.RandomState(2)
    operands = [
        (
            rng.standard_normal((BATCH, n_in)).astype(numpy.float32),
            rng.standard_normal((n_in, n_out)).astype(numpy.float32),
        )
        for n_in, n_out in itertools.pairwise(mlp_step.SIZES)
    ]

    def run():
        for a, b in operands:
            numpy.matmul(a, b)

    return {"gemm_floor_ms": _timing.summary(_timing.measure(run, repeats, 3), 1e3)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="timed batches")
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args(argv)
    if args.repeats <= 0 or args.warmup < 1:
        parser.error("--repeats must be positive and --warmup at least 1")
    results = {"sizes": list(mlp_step.SIZES), "batch": BATCH}
    results.update(bench_framework(args.repeats, args.warmup))
    results.update(bench_gemm_floor(args.repeats))
    _timing.emit("mlp_inference", results)


if __name__ == "__main__":
    main()
