"""Trainer overhead per iteration with the usual extensions, on a tiny model.

A ``Trainer`` with ``StandardUpdater`` over a ``SerialIterator`` trains
``L.Classifier(L.Linear(10, 2))`` with SGD, batch 10, with the extensions of
the tutorials: ``LogReport``, ``PrintReport`` and ``ProgressBar`` (both
writing to a ``StringIO``), ``observe_lr``, an ``Evaluator`` and a
``snapshot`` run once per run (at its last epoch). The model is tiny so that
the framework's per-iteration work dominates.

The same iterations are also run as a plain loop (``iterator.next()``,
``concat_examples``, ``optimizer.update``), paired with each trainer run; the
difference is the trainer's own overhead (reporter scope, triggers,
extensions). Written against Chainer's public API only, so it runs unchanged
on Chainer 7.8.1 and on this project.

Prints one JSON line.
"""

import argparse
import contextlib
import gc
import io
import os
import shutil
import sys
import tempfile
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing

N_IN = 10
N_TRAIN = 3000
N_TEST = 100
BATCH = 10
ITERS_PER_EPOCH = N_TRAIN // BATCH


def make_data(n, seed):
    rng = numpy.random.RandomState(seed)
    x = rng.standard_normal((n, N_IN)).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    return [(x[i], t[i]) for i in range(n)]


def make_model():
    import chainer
    import chainer.links as L

    numpy.random.seed(0)
    model = L.Classifier(L.Linear(N_IN, 2))
    optimizer = chainer.optimizers.SGD(lr=0.05)
    optimizer.setup(model)
    return model, optimizer


def run_trainer(train, test, epochs, out):
    """One trainer run; returns (seconds, iterations, final main/loss)."""
    # Chainer 7.8.1's ProgressBar ignores ``out`` and writes to the
    # sys.stdout of its construction time: both sides print into a StringIO.
    with contextlib.redirect_stdout(io.StringIO()):
        return _run_trainer(train, test, epochs, out)


def _run_trainer(train, test, epochs, out):
    from chainer import iterators
    from chainer import training
    from chainer.training import extensions

    model, optimizer = make_model()
    train_iter = iterators.SerialIterator(train, BATCH, shuffle=False)
    test_iter = iterators.SerialIterator(test, N_TEST, repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (epochs, "epoch"), out=out)
    rare = (epochs, "epoch")
    trainer.extend(extensions.Evaluator(test_iter, model), trigger=rare)
    trainer.extend(extensions.snapshot(), trigger=rare)
    trainer.extend(extensions.observe_lr())
    add_reports(
        trainer,
        [
            "epoch",
            "iteration",
            "main/loss",
            "main/accuracy",
            "validation/main/loss",
            "validation/main/accuracy",
            "lr",
            "elapsed_time",
        ],
    )
    t0 = time.perf_counter()
    trainer.run()
    elapsed = time.perf_counter() - t0
    log = trainer.get_extension("LogReport").log
    return elapsed, updater.iteration, float(log[-1]["main/loss"])


def add_reports(trainer, entries):
    """Extends ``trainer`` with the tutorials' reports, printing into StringIOs.

    ``LogReport``, ``PrintReport`` of ``entries`` and ``ProgressBar``.
    """
    from chainer.training import extensions

    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(entries, out=io.StringIO()))
    trainer.extend(extensions.ProgressBar(out=io.StringIO()))


def run_plain_loop(train, iterations):
    """The same updates without a trainer; returns seconds."""
    from chainer import dataset
    from chainer import iterators

    model, optimizer = make_model()
    it = iterators.SerialIterator(train, BATCH, shuffle=False)
    t0 = time.perf_counter()
    for _ in range(iterations):
        x, t = dataset.concat_examples(it.next())
        optimizer.update(model, x, t)
    return time.perf_counter() - t0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs")
    parser.add_argument("--epochs", type=int, default=2, help="epochs per run")
    parser.add_argument("--warmup", type=int, default=1)
    args = parser.parse_args(argv)
    if args.repeats <= 0 or args.epochs <= 0 or args.warmup < 0:
        parser.error("--repeats and --epochs must be positive")

    train = make_data(N_TRAIN, 1)
    test = make_data(N_TEST, 2)
    iterations = args.epochs * ITERS_PER_EPOCH
    trainer_us, loop_us, overhead_us = [], [], []
    loss = None
    out_root = tempfile.mkdtemp(prefix="trainer_step_")
    try:
        for i in range(args.warmup + args.repeats):
            out = os.path.join(out_root, str(i))
            gc.collect()
            seconds, n, loss = run_trainer(train, test, args.epochs, out)
            if n != iterations:
                raise RuntimeError(f"trainer ran {n} iterations, not {iterations}")
            gc.collect()
            plain = run_plain_loop(train, iterations)
            if i < args.warmup:
                continue
            trainer_us.append(seconds / iterations)
            loop_us.append(plain / iterations)
            overhead_us.append((seconds - plain) / iterations)
    finally:
        shutil.rmtree(out_root, ignore_errors=True)

    _timing.emit(
        "trainer_step",
        {
            "batch": BATCH,
            "iterations_per_run": iterations,
            "iter_us": _timing.summary(trainer_us, 1e6),
            "loop_us": _timing.summary(loop_us, 1e6),
            "overhead_us": _timing.summary(overhead_us, 1e6),
            "check": {"final_main_loss": loss},
        },
    )


if __name__ == "__main__":
    main()
