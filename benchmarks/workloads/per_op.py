"""Per-op overhead: a chain of small elementwise ops with backward.

Written against Chainer's public API only (Variable operators), so it runs
unchanged on Chainer 7.8.1 and on this project. The chain repeats four ops
on 10-element float32 arrays: ``h * a``, ``+ b``, ``* 0.5``, ``- a`` (three
Variable-Variable ops and one Variable-scalar op). It reports microseconds
per op for the forward and the backward pass separately, and the cost of
the same arithmetic done with bare NumPy (the floor any framework pays).

Prints one JSON line.
"""

import argparse
import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing

SIZE = 10


def chain(h, a, b, n_ops):
    """The op chain; works unchanged on Variables and on NumPy arrays."""
    for _ in range(n_ops // 4):
        h = h * a
        h = h + b
        h = h * 0.5
        h = h - a
    return h


def numpy_forward(x, a, b, n_ops):
    """Bare NumPy forward that keeps what the backward pass needs."""
    saved = []
    h = x
    for _ in range(n_ops // 4):
        saved.append(h)
        h = h * a
        h = h + b
        h = h * 0.5
        h = h - a
    return h, saved


def numpy_backward(gy, a, saved):
    """Bare NumPy backward of :func:`numpy_forward` (grads of x, a, b)."""
    ga = numpy.zeros_like(a)
    gb = numpy.zeros_like(a)
    gh = gy
    for h_in in reversed(saved):
        ga = ga - gh
        gh = gh * 0.5
        gb = gb + gh
        ga = ga + gh * h_in
        gh = gh * a
    return gh, ga, gb


def bench_framework(n_ops, chains, repeats):
    import chainer

    rng = numpy.random.RandomState(0)
    x = chainer.Variable(rng.uniform(-1, 1, SIZE).astype(numpy.float32))
    a = chainer.Variable(numpy.full(SIZE, 1.01, numpy.float32))
    b = chainer.Variable(rng.uniform(-1, 1, SIZE).astype(numpy.float32))
    gy = numpy.ones(SIZE, numpy.float32)
    perf_counter = time.perf_counter
    last = {}

    def run():
        t_fwd = t_bwd = 0.0
        for _ in range(chains):
            x.cleargrad()
            a.cleargrad()
            b.cleargrad()
            t0 = perf_counter()
            y = chain(x, a, b, n_ops)
            t1 = perf_counter()
            y.grad = gy.copy()
            t2 = perf_counter()
            y.backward()
            t3 = perf_counter()
            t_fwd += t1 - t0
            t_bwd += t3 - t2
        last["y"] = y.array
        return t_fwd, t_bwd

    samples = _timing.measure(run, repeats)
    per_op = 1e6 / (chains * n_ops)
    return {
        "fwd_us_per_op": _timing.summary([s[0] for s in samples], per_op),
        "bwd_us_per_op": _timing.summary([s[1] for s in samples], per_op),
        "total_us_per_op": _timing.summary([s[0] + s[1] for s in samples], per_op),
        "check": {
            "y_sum": float(last["y"].sum()),
            "ga_sum": float(a.grad.sum()),
            "gb_sum": float(b.grad.sum()),
        },
    }


def bench_numpy(n_ops, chains, repeats):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, SIZE).astype(numpy.float32)
    a = numpy.full(SIZE, 1.01, numpy.float32)
    b = rng.uniform(-1, 1, SIZE).astype(numpy.float32)
    gy = numpy.ones(SIZE, numpy.float32)
    perf_counter = time.perf_counter

    def run():
        t_fwd = t_bwd = 0.0
        for _ in range(chains):
            t0 = perf_counter()
            _, saved = numpy_forward(x, a, b, n_ops)
            t1 = perf_counter()
            numpy_backward(gy, a, saved)
            t2 = perf_counter()
            t_fwd += t1 - t0
            t_bwd += t2 - t1
        return t_fwd, t_bwd

    samples = _timing.measure(run, repeats)
    per_op = 1e6 / (chains * n_ops)
    return {
        "numpy_fwd_us_per_op": _timing.summary([s[0] for s in samples], per_op),
        "numpy_bwd_us_per_op": _timing.summary([s[1] for s in samples], per_op),
        "numpy_total_us_per_op": _timing.summary(
            [s[0] + s[1] for s in samples], per_op
        ),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=100, help="ops per chain")
    parser.add_argument("--chains", type=int, default=10, help="chains per repeat")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    if args.ops <= 0 or args.ops % 4:
        parser.error("--ops must be a positive multiple of 4")
    results = {"ops": args.ops}
    results.update(bench_framework(args.ops, args.chains, args.repeats))
    results.update(bench_numpy(args.ops, args.chains, args.repeats))
    _timing.emit("per_op", results)


if __name__ == "__main__":
    main()
