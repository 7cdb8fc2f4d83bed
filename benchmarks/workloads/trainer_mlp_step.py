"""The MLP of ``mlp_step.py`` trained through a ``Trainer``, per iteration.

``L.Classifier`` over ``L.Linear(784, 1000)`` -> ReLU -> ``L.Linear(1000,
1000)`` -> ReLU -> ``L.Linear(1000, 10)`` (the weights of ``mlp_step.py``),
Adam, batch 100, ``StandardUpdater`` over a ``SerialIterator``, with the
extensions of the MNIST example: an ``Evaluator`` at each epoch's end,
``LogReport``, ``PrintReport`` and ``ProgressBar`` (both writing to a
``StringIO``). Unlike ``trainer_step.py`` (a tiny model, the trainer's own
overhead) this is a training job whose GEMMs and update dominate, as users
run it; ``torch_trainer_mlp_step.py`` is the same job as a PyTorch loop over
a ``DataLoader``. Written against Chainer's public API only, so it runs
unchanged on Chainer 7.8.1 and on this project.

Prints one JSON line.
"""

import argparse
import contextlib
import gc
import io
import os
import sys
import tempfile
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing
import mlp_step
import trainer_step

BATCH = 100
N_TRAIN = 2000
N_TEST = 500
ITERS_PER_EPOCH = N_TRAIN // BATCH


def make_data():
    """``(train, test)`` lists of ``(x, label)``: mlp_step's random inputs."""
    sizes = mlp_step.SIZES
    batches = mlp_step.make_batches(sizes, BATCH, (N_TRAIN + N_TEST) // BATCH)
    x = numpy.concatenate([b[0] for b in batches])
    t = numpy.concatenate([b[1].argmax(axis=1) for b in batches]).astype(numpy.int32)
    examples = list(zip(x, t, strict=True))
    return examples[:N_TRAIN], examples[N_TRAIN:]


def make_model():
    import chainer
    import chainer.functions as F
    import chainer.links as L

    weights = mlp_step.make_weights(mlp_step.SIZES)

    class MLP(chainer.ChainList):
        def __init__(self):
            super().__init__(*(L.Linear(W.shape[1], W.shape[0]) for W, _ in weights))
            for link, (W, b) in zip(self, weights, strict=True):
                link.W.array[...] = W
                link.b.array[...] = b

        def forward(self, x):
            h = x
            for i, link in enumerate(self):
                h = link(h)
                if i + 1 < len(self):
                    h = F.relu(h)
            return h

    model = L.Classifier(MLP())
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)
    return model, optimizer


def run_trainer(train, test, epochs, out):
    """One trainer run; returns (seconds, iterations, final main/loss)."""
    # Chainer 7.8.1's ProgressBar writes to the sys.stdout of its
    # construction time: both sides print into a StringIO.
    with contextlib.redirect_stdout(io.StringIO()):
        from chainer import iterators
        from chainer import training
        from chainer.training import extensions

        model, optimizer = make_model()
        train_iter = iterators.SerialIterator(train, BATCH, shuffle=False)
        test_iter = iterators.SerialIterator(test, BATCH, repeat=False, shuffle=False)
        updater = training.updaters.StandardUpdater(train_iter, optimizer)
        trainer = training.Trainer(updater, (epochs, "epoch"), out=out)
        trainer.extend(extensions.Evaluator(test_iter, model))
        trainer_step.add_reports(
            trainer,
            [
                "epoch",
                "main/loss",
                "validation/main/loss",
                "main/accuracy",
                "validation/main/accuracy",
                "elapsed_time",
            ],
        )
        t0 = time.perf_counter()
        trainer.run()
        elapsed = time.perf_counter() - t0
    log = trainer.get_extension("LogReport").log
    return elapsed, updater.iteration, float(log[-1]["main/loss"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed runs")
    parser.add_argument("--epochs", type=int, default=2, help="epochs per run")
    parser.add_argument("--warmup", type=int, default=1)
    args = parser.parse_args(argv)
    if args.repeats <= 0 or args.epochs <= 0 or args.warmup < 0:
        parser.error("--repeats and --epochs must be positive")
    train, test = make_data()
    iterations = args.epochs * ITERS_PER_EPOCH
    iter_ms = []
    loss = None
    with tempfile.TemporaryDirectory(prefix="trainer_mlp_step_") as out_root:
        for i in range(args.warmup + args.repeats):
            gc.collect()
            seconds, n, loss = run_trainer(
                train, test, args.epochs, os.path.join(out_root, str(i))
            )
            if n != iterations:
                raise RuntimeError(f"trainer ran {n} iterations, not {iterations}")
            if i >= args.warmup:
                iter_ms.append(seconds / iterations)
    _timing.emit(
        "trainer_mlp_step",
        {
            "batch": BATCH,
            "iterations_per_run": iterations,
            "iter_ms": _timing.summary(iter_ms, 1e3),
            "check": {"final_main_loss": loss},
        },
    )


if __name__ == "__main__":
    main()
