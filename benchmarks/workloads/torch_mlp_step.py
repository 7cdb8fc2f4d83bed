"""PyTorch CPU version of ``mlp_step.py``: same weights, data, loss and Adam.

Runs in the PyTorch virtualenv (``.bench/torch``); reports the same keys as
``mlp_step.py``. Prints one JSON line.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing
import mlp_step


def bench_torch(steps, warmup, threads):
    import torch

    torch.set_num_threads(threads)
    params = []
    for W, b in mlp_step.make_weights(mlp_step.SIZES):
        params.append(torch.tensor(W, requires_grad=True))
        params.append(torch.tensor(b, requires_grad=True))
    # Chainer's Adam defaults: alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8.
    optimizer = torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    batches = [
        (torch.from_numpy(x), torch.from_numpy(t.argmax(axis=1)))
        for x, t in mlp_step.make_batches(
            mlp_step.SIZES, mlp_step.BATCH, mlp_step.N_BATCHES
        )
    ]
    n_layers = len(params) // 2
    losses = []
    perf_counter = time.perf_counter

    def step():
        x, t = batches[len(losses) % mlp_step.N_BATCHES]
        t0 = perf_counter()
        h = x
        for i in range(n_layers):
            h = torch.nn.functional.linear(h, params[2 * i], params[2 * i + 1])
            if i + 1 < n_layers:
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h, t)
        t1 = perf_counter()
        optimizer.zero_grad()
        loss.backward()
        t2 = perf_counter()
        optimizer.step()
        t3 = perf_counter()
        losses.append(float(loss.item()))
        return t1 - t0, t2 - t1, t3 - t2

    results = mlp_step.phase_summaries(_timing.measure(step, steps, warmup))
    results["check"] = {
        "loss_first": losses[0],
        "loss_last": losses[-1],
        "steps": len(losses),
    }
    results["torch"] = torch.__version__
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30, help="timed steps")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if args.steps <= 0 or args.warmup < 1:
        parser.error("--steps must be positive and --warmup at least 1")
    results = {"sizes": list(mlp_step.SIZES), "batch": mlp_step.BATCH}
    results.update(bench_torch(args.steps, args.warmup, args.threads))
    results.update(mlp_step.bench_gemm_floor(args.steps))
    results.update(mlp_step.bench_adam_floor(args.steps))
    _timing.emit("mlp_step", results)


if __name__ == "__main__":
    main()
