"""MLP 784-1000-1000-10 train step with Adam, batch 100, core API only.

Written against Chainer's public API without ``chainer.functions`` or
``chainer.links``, so it runs unchanged on Chainer 7.8.1 and on the core of
this project: Parameters registered in a ``Chain``'s ``init_scope``, layers as
``h @ W.T + b``, ReLU as a product with the ``h.array > 0`` mask, and the
softmax cross-entropy from Variable operators (see :func:`softmax_cross_entropy`).
Both frameworks start from the same weights, so their losses must agree.

Also measures two floors with bare NumPy: the step's matrix products (forward,
weight gradients and the input gradients of the hidden layers), and Adam's
update done in place on arrays of the model's size.

Prints one JSON line.
"""

import argparse
import itertools
import math
import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing

SIZES = (784, 1000, 1000, 10)
BATCH = 100
N_BATCHES = 8


def make_weights(sizes, seed=0):
    """LeCun-normal weights and zero biases, as NumPy float32 arrays."""
    rng = numpy.random.RandomState(seed)
    weights = []
    for n_in, n_out in itertools.pairwise(sizes):
        W = rng.standard_normal((n_out, n_in)) * math.sqrt(1.0 / n_in)
        weights.append((W.astype(numpy.float32), numpy.zeros(n_out, numpy.float32)))
    return weights


def make_batches(sizes, batch, n_batches, seed=1):
    """Random inputs in [0, 1) with one-hot targets."""
    rng = numpy.random.RandomState(seed)
    eye = numpy.eye(sizes[-1], dtype=numpy.float32)
    batches = []
    for _ in range(n_batches):
        x = rng.uniform(0, 1, (batch, sizes[0])).astype(numpy.float32)
        t = rng.randint(0, sizes[-1], batch)
        batches.append((x, eye[t]))
    return batches


def build_model(weights):
    import chainer

    class MLP(chainer.Chain):
        def __init__(self):
            super().__init__()
            self.n_layers = len(weights)
            with self.init_scope():
                for i, (W, b) in enumerate(weights):
                    setattr(self, "W%d" % i, chainer.Parameter(W.copy()))
                    setattr(self, "b%d" % i, chainer.Parameter(b.copy()))

        def forward(self, x):
            h = x
            for i in range(self.n_layers):
                h = h @ getattr(self, "W%d" % i).T + getattr(self, "b%d" % i)
                if i + 1 < self.n_layers:
                    h = h * (h.array > 0).astype(h.dtype)
            return h

    return MLP()


def softmax_cross_entropy(z, onehot):
    """Mean softmax cross-entropy from Variable operators only.

    ``log`` is not a Variable operator, so log-sum-exp uses the tangent of
    ``log`` at the current sum ``s0``: ``s / s0 + log(s0) - 1`` has the value
    ``log(s0)`` and the gradient ``1 / s0``, exactly those of ``log(s)``.
    """
    n_classes = z.shape[1]
    shift = z.array.max(axis=1, keepdims=True)
    s = (math.e ** (z - shift)).mean(axis=1) * n_classes
    s0 = s.array
    lse = s * (1 / s0) + (numpy.log(s0) - 1 + shift[:, 0])
    return lse.mean() - (z * onehot).mean() * n_classes


def bench_framework(steps, warmup):
    import chainer

    model = build_model(make_weights(SIZES))
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)
    batches = [
        (chainer.Variable(x, requires_grad=False), t)
        for x, t in make_batches(SIZES, BATCH, N_BATCHES)
    ]
    losses = []
    perf_counter = time.perf_counter

    def step():
        x, t = batches[len(losses) % N_BATCHES]
        t0 = perf_counter()
        loss = softmax_cross_entropy(model(x), t)
        t1 = perf_counter()
        model.cleargrads()
        loss.backward()
        t2 = perf_counter()
        optimizer.update()
        t3 = perf_counter()
        losses.append(float(loss.array))
        return t1 - t0, t2 - t1, t3 - t2

    results = phase_summaries(_timing.measure(step, steps, warmup))
    results["check"] = {
        "loss_first": losses[0],
        "loss_last": losses[-1],
        "steps": len(losses),
    }
    return results


def phase_summaries(samples):
    """Step time and its forward / backward / update parts, in ms."""
    return {
        "step_ms": _timing.summary([sum(s) for s in samples], 1e3),
        "forward_ms": _timing.summary([s[0] for s in samples], 1e3),
        "backward_ms": _timing.summary([s[1] for s in samples], 1e3),
        "update_ms": _timing.summary([s[2] for s in samples], 1e3),
    }


def gemm_list(sizes, batch):
    """(m, k, n) of every GEMM in one step: forward, gW and gx (not for x)."""
    shapes = []
    for layer, (n_in, n_out) in enumerate(itertools.pairwise(sizes)):
        shapes.append((batch, n_in, n_out))
        shapes.append((n_out, batch, n_in))
        if layer > 0:
            shapes.append((batch, n_out, n_in))
    return shapes


def bench_gemm_floor(repeats):
    rng = numpy.random.RandomState(2)
    operands = [
        (
            rng.standard_normal((m, k)).astype(numpy.float32),
            rng.standard_normal((k, n)).astype(numpy.float32),
        )
        for m, k, n in gemm_list(SIZES, BATCH)
    ]
    flops = sum(2 * m * k * n for m, k, n in gemm_list(SIZES, BATCH))

    def run():
        for a, b in operands:
            numpy.matmul(a, b)

    samples = _timing.measure(run, repeats, warmup=3)
    floor = _timing.summary(samples, 1e3)
    return {
        "gemm_floor_ms": floor,
        "gemm_gflops_per_step": flops / 1e9,
        "sgemm_gflop_s": flops / (floor["median"] / 1e3) / 1e9,
    }


def bench_adam_floor(repeats):
    """Adam's update done by bare in-place NumPy on arrays of the MLP's size."""
    beta1, beta2, eps, alpha_t = 0.9, 0.999, 1e-8, 1e-3
    rng = numpy.random.RandomState(3)
    slots = []
    for W, b in make_weights(SIZES):
        for p in (W, b):
            g = rng.standard_normal(p.shape).astype(numpy.float32)
            zeros = numpy.zeros_like(p)
            slots.append((p, g, zeros, zeros.copy(), numpy.empty_like(p)))

    def run():
        for p, g, m, v, tmp in slots:
            numpy.subtract(g, m, out=tmp)
            tmp *= 1 - beta1
            m += tmp
            numpy.multiply(g, g, out=tmp)
            tmp -= v
            tmp *= 1 - beta2
            v += tmp
            numpy.sqrt(v, out=tmp)
            tmp += eps
            numpy.divide(m, tmp, out=tmp)
            tmp *= alpha_t
            p -= tmp

    return {"adam_floor_ms": _timing.summary(_timing.measure(run, repeats), 1e3)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30, help="timed steps")
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args(argv)
    if args.steps <= 0 or args.warmup < 1:
        parser.error("--steps must be positive and --warmup at least 1")
    results = {"sizes": list(SIZES), "batch": BATCH}
    results.update(bench_framework(args.steps, args.warmup))
    results.update(bench_gemm_floor(args.steps))
    results.update(bench_adam_floor(args.steps))
    _timing.emit("mlp_step", results)


if __name__ == "__main__":
    main()
