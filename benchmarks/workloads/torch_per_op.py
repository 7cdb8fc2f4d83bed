"""PyTorch CPU version of ``per_op.py``: the same op chain with autograd.

Runs in the PyTorch virtualenv (``.bench/torch``); reports the same keys as
``per_op.py`` for the framework part. Prints one JSON line.
"""

import argparse
import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing
import per_op


def bench_torch(n_ops, chains, repeats, threads):
    import torch

    torch.set_num_threads(threads)
    rng = numpy.random.RandomState(0)
    x = torch.tensor(
        rng.uniform(-1, 1, per_op.SIZE).astype(numpy.float32), requires_grad=True
    )
    a = torch.full((per_op.SIZE,), 1.01, dtype=torch.float32, requires_grad=True)
    b = torch.tensor(
        rng.uniform(-1, 1, per_op.SIZE).astype(numpy.float32), requires_grad=True
    )
    gy = torch.ones(per_op.SIZE, dtype=torch.float32)
    perf_counter = time.perf_counter
    last = {}

    def run():
        t_fwd = t_bwd = 0.0
        for _ in range(chains):
            x.grad = a.grad = b.grad = None
            t0 = perf_counter()
            y = per_op.chain(x, a, b, n_ops)
            t1 = perf_counter()
            y.backward(gy)
            t2 = perf_counter()
            t_fwd += t1 - t0
            t_bwd += t2 - t1
        last["y"] = y.detach().numpy()
        return t_fwd, t_bwd

    samples = _timing.measure(run, repeats)
    scale = 1e6 / (chains * n_ops)
    return {
        "fwd_us_per_op": _timing.summary([s[0] for s in samples], scale),
        "bwd_us_per_op": _timing.summary([s[1] for s in samples], scale),
        "total_us_per_op": _timing.summary([s[0] + s[1] for s in samples], scale),
        "check": {
            "y_sum": float(last["y"].sum()),
            "ga_sum": float(a.grad.sum()),
            "gb_sum": float(b.grad.sum()),
        },
        "torch": torch.__version__,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=100, help="ops per chain")
    parser.add_argument("--chains", type=int, default=10, help="chains per repeat")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if args.ops <= 0 or args.ops % 4:
        parser.error("--ops must be a positive multiple of 4")
    results = {"ops": args.ops}
    results.update(bench_torch(args.ops, args.chains, args.repeats, args.threads))
    results.update(per_op.bench_numpy(args.ops, args.chains, args.repeats))
    _timing.emit("per_op", results)


if __name__ == "__main__":
    main()
