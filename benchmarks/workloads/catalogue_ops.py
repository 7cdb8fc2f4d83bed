"""Per-call overhead of the catalogue ops an MLP uses: relu, sum, softmax_cross_entropy.

Written against Chainer's public API (``chainer.functions``), so it runs
unchanged on Chainer 7.8.1 and on this project (which needs chainer-links).
Each function is called ``--calls`` times on small float32 arrays (10 x 10):
relu and sum as a chain (each call consumes the previous output), the loss
as independent calls; then one backward pass covers all calls. It reports
microseconds per call for forward and backward, and the bare NumPy cost of
the same forward arithmetic as the floor.

Prints one JSON line.
"""

import argparse
import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing

SHAPE = (10, 10)


def _relu_chain(F, x, calls):
    h = x
    for _ in range(calls):
        h = F.relu(h)
    return [h]


def _sum_chain(F, x, calls):
    h = F.sum(x, axis=1, keepdims=True)
    for _ in range(calls - 1):
        h = F.sum(h, axis=1, keepdims=True)
    return [h]


def _loss_calls(F, x, t, calls):
    return [F.softmax_cross_entropy(x, t) for _ in range(calls)]


def _numpy_floor(name, x, t, calls):
    if name == "relu":
        h = x
        for _ in range(calls):
            h = numpy.maximum(h, 0)
    elif name == "sum":
        h = x.sum(axis=1, keepdims=True)
        for _ in range(calls - 1):
            h = h.sum(axis=1, keepdims=True)
    else:
        for _ in range(calls):
            m = x.max(axis=1, keepdims=True)
            e = numpy.exp(x - m)
            log_z = numpy.log(e.sum(axis=1, keepdims=True)) + m
            (log_z[:, 0] - x[numpy.arange(len(t)), t]).mean()


def bench(calls, repeats):
    import chainer
    import chainer.functions as F

    rng = numpy.random.RandomState(0)
    x_data = rng.uniform(-1, 1, SHAPE).astype(numpy.float32)
    t = rng.randint(0, SHAPE[1], SHAPE[0]).astype(numpy.int32)
    x = chainer.Variable(x_data)
    perf_counter = time.perf_counter
    makers = {
        "relu": lambda: _relu_chain(F, x, calls),
        "sum": lambda: _sum_chain(F, x, calls),
        "softmax_cross_entropy": lambda: _loss_calls(F, x, t, calls),
    }
    results = {}
    checks = {}
    for name, make in makers.items():

        def run(make=make):
            x.cleargrad()
            t0 = perf_counter()
            outs = make()
            t1 = perf_counter()
            grads = [chainer.Variable(numpy.ones(o.shape, numpy.float32)) for o in outs]
            t2 = perf_counter()
            chainer.backward(outs, grads)
            t3 = perf_counter()
            return t1 - t0, t3 - t2

        samples = _timing.measure(run, repeats)
        scale = 1e6 / calls
        results[f"{name}_fwd_us"] = _timing.summary([s[0] for s in samples], scale)
        results[f"{name}_bwd_us"] = _timing.summary([s[1] for s in samples], scale)
        results[f"{name}_total_us"] = _timing.summary(
            [s[0] + s[1] for s in samples], scale
        )
        floor = _timing.measure(
            lambda name=name: _numpy_floor(name, x_data, t, calls), repeats
        )
        results[f"{name}_numpy_us"] = _timing.summary(floor, scale)
        checks[name] = float(x.grad.sum())
    results["check"] = checks
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    results = {"calls": args.calls}
    results.update(bench(args.calls, args.repeats))
    _timing.emit("catalogue_ops", results)


if __name__ == "__main__":
    main()
