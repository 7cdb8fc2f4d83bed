"""PyTorch CPU version of ``trainer_mlp_step.py``: the same job as a plain loop.

The MLP of ``mlp_step.py`` (same weights), Adam, batch 100, over a
``DataLoader`` of the same examples; per iteration the loss and accuracy are
read back as a logger would, and each epoch ends with an evaluation pass on
the test examples and a report line written to a ``StringIO``. Runs in the
PyTorch virtualenv (``.bench/torch``); reports the same keys as
``trainer_mlp_step.py``. Prints one JSON line.
"""

import argparse
import gc
import io
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing
import mlp_step
import trainer_mlp_step as job


def run_loop(torch, train, test, epochs):
    """One training run; returns (seconds, iterations, last epoch's mean loss)."""
    layers = []
    for i, (W, b) in enumerate(mlp_step.make_weights(mlp_step.SIZES)):
        linear = torch.nn.Linear(W.shape[1], W.shape[0])
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(W))
            linear.bias.copy_(torch.from_numpy(b))
        layers.append(linear)
        if i + 1 < len(mlp_step.SIZES) - 1:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999))
    loader = torch.utils.data.DataLoader(train, batch_size=job.BATCH, shuffle=False)
    test_loader = torch.utils.data.DataLoader(test, batch_size=job.BATCH)
    report = io.StringIO()
    iterations = 0
    mean_loss = None
    t0 = time.perf_counter()
    for epoch in range(epochs):
        losses, accuracies = [], []
        model.train()
        for x, t in loader:
            y = model(x)
            loss = torch.nn.functional.cross_entropy(y, t)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            accuracies.append((y.argmax(dim=1) == t).float().mean().item())
            iterations += 1
        model.eval()
        with torch.no_grad():
            val = [
                torch.nn.functional.cross_entropy(model(x), t).item()
                for x, t in test_loader
            ]
        mean_loss = sum(losses) / len(losses)
        report.write(
            f"{epoch + 1} {mean_loss} {sum(val) / len(val)} "
            f"{sum(accuracies) / len(accuracies)} {time.perf_counter() - t0}\n"
        )
    return time.perf_counter() - t0, iterations, mean_loss


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed runs")
    parser.add_argument("--epochs", type=int, default=2, help="epochs per run")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if args.repeats <= 0 or args.epochs <= 0 or args.warmup < 0:
        parser.error("--repeats and --epochs must be positive")
    import torch

    torch.set_num_threads(args.threads)

    def tensors(examples):
        x = torch.from_numpy(numpy_stack([e[0] for e in examples]))
        t = torch.from_numpy(numpy_stack([e[1] for e in examples]).astype("int64"))
        return torch.utils.data.TensorDataset(x, t)

    train, test = job.make_data()
    train, test = tensors(train), tensors(test)
    iterations = args.epochs * job.ITERS_PER_EPOCH
    iter_ms = []
    loss = None
    for i in range(args.warmup + args.repeats):
        gc.collect()
        seconds, n, loss = run_loop(torch, train, test, args.epochs)
        if n != iterations:
            raise RuntimeError(f"ran {n} iterations, not {iterations}")
        if i >= args.warmup:
            iter_ms.append(seconds / iterations)
    _timing.emit(
        "trainer_mlp_step",
        {
            "batch": job.BATCH,
            "iterations_per_run": iterations,
            "iter_ms": _timing.summary(iter_ms, 1e3),
            "check": {"final_main_loss": loss},
            "torch": torch.__version__,
        },
    )


def numpy_stack(values):
    import numpy

    return numpy.stack(values)


if __name__ == "__main__":
    main()
