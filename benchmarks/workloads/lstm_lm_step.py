"""LSTM language-model train step (the PTB example's RNNLM), Chainer public API.

Vocabulary 10000, 650 units, ``L.EmbedID`` -> dropout -> ``L.LSTM`` ->
dropout -> ``L.LSTM`` -> dropout -> ``L.Linear`` to the vocabulary, stepped in
Python over 35 time steps (truncated BPTT) with batch 20. The 35 per-step
``F.softmax_cross_entropy`` losses are summed, ``cleargrads`` + one
``backward`` + ``unchain_backward``, then SGD (lr 1) with
``GradientClipping(5)``: the update of the seeds' PTB example. The LSTM state
carries over between steps, as in the example.

Written against Chainer's public API only, so the same file runs on Chainer
7.8.1 and on this project. Both start from the same weights (uniform in
[-0.1, 0.1), as the example initialises them); ``check.loss_eval`` is the
35-step loss without dropout on those weights, so it must agree between
frameworks (``torch_lstm_lm_step.py`` reports the same value).

``step_cpu_ms`` is the process's CPU time per step (all its threads): on a
shared machine it moves less than the wall time when other jobs take the
cores, so compare it too (with one BLAS thread it is the work done).

Also measures the GEMM floor: the step's matrix products (forward, input and
weight gradients of every layer) in bare NumPy. Prints one JSON line.
"""

import argparse
import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing

VOCAB = 10000
UNITS = 650
BPTT = 35
BATCH = 20
GRAD_CLIP = 5.0
N_WORDS = 20000


def make_weights(seed=0):
    """Weights in the PTB example's layout, uniform in [-0.1, 0.1), float32.

    Returns a dict keyed by Chainer parameter path. LSTM weights follow
    ``L.LSTM``'s layout: row ``4 * u + g`` of ``upward/W`` and ``lateral/W``
    feeds gate ``g`` (a, i, f, o) of unit ``u``.
    """
    rng = numpy.random.RandomState(seed)
    shapes = {
        "embed/W": (VOCAB, UNITS),
        "l1/upward/W": (4 * UNITS, UNITS),
        "l1/upward/b": (4 * UNITS,),
        "l1/lateral/W": (4 * UNITS, UNITS),
        "l2/upward/W": (4 * UNITS, UNITS),
        "l2/upward/b": (4 * UNITS,),
        "l2/lateral/W": (4 * UNITS, UNITS),
        "l3/W": (VOCAB, UNITS),
        "l3/b": (VOCAB,),
    }
    return {
        name: rng.uniform(-0.1, 0.1, shape).astype(numpy.float32)
        for name, shape in shapes.items()
    }


def make_corpus(seed=1):
    """A random word-ID sequence and the PTB example's batch offsets."""
    rng = numpy.random.RandomState(seed)
    words = rng.randint(0, VOCAB, N_WORDS).astype(numpy.int32)
    offsets = numpy.arange(BATCH) * (N_WORDS // BATCH)
    return words, offsets


def batches(words, offsets, start):
    """The ``BPTT`` (x, t) pairs of one step, starting at position ``start``."""
    n = len(words)
    out = []
    for i in range(BPTT):
        pos = (offsets + start + i) % n
        out.append((words[pos], words[(pos + 1) % n]))
    return out


def build_model(weights):
    import chainer
    import chainer.functions as F
    import chainer.links as L

    class RNNForLM(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.embed = L.EmbedID(VOCAB, UNITS)
                self.l1 = L.LSTM(UNITS, UNITS)
                self.l2 = L.LSTM(UNITS, UNITS)
                self.l3 = L.Linear(UNITS, VOCAB)
            params = dict(self.namedparams())
            for name, value in weights.items():
                params["/" + name].array[...] = value

        def reset_state(self):
            self.l1.reset_state()
            self.l2.reset_state()

        def forward(self, x):
            h0 = self.embed(x)
            h1 = self.l1(F.dropout(h0))
            h2 = self.l2(F.dropout(h1))
            return self.l3(F.dropout(h2))

    return RNNForLM()


def eval_loss(model, words, offsets, send=None):
    """Mean per-step loss of the first ``BPTT`` steps without dropout.

    ``send`` moves the input arrays to the model's device (None: NumPy).
    """
    import chainer
    import chainer.functions as F

    send = send or (lambda a: a)
    model.reset_state()
    total = 0.0
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        for x, t in batches(words, offsets, 0):
            total += float(F.softmax_cross_entropy(model(send(x)), send(t)).array)
    model.reset_state()
    return total / BPTT


def bench_framework(steps, warmup, device="@numpy"):
    import chainer
    import chainer.functions as F

    device = chainer.get_device(device)
    sync = _timing.synchronizer(device)
    words, offsets = make_corpus()
    model = build_model(make_weights())
    model.to_device(device)
    loss_eval = eval_loss(model, words, offsets, device.send)
    optimizer = chainer.optimizers.SGD(lr=1.0)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.GradientClipping(GRAD_CLIP))
    losses = []
    cpu_times = []
    perf_counter = time.perf_counter
    process_time = time.process_time

    def step():
        data = [
            (device.send(x), device.send(t))
            for x, t in batches(words, offsets, len(losses) * BPTT)
        ]
        c0 = process_time()
        t0 = perf_counter()
        loss = 0
        for x, t in data:
            loss += F.softmax_cross_entropy(model(x), t)
        sync()
        t1 = perf_counter()
        model.cleargrads()
        loss.backward()
        loss.unchain_backward()
        sync()
        t2 = perf_counter()
        optimizer.update()
        sync()
        t3 = perf_counter()
        cpu_times.append(process_time() - c0)
        losses.append(float(loss.array) / BPTT)
        return t1 - t0, t2 - t1, t3 - t2

    results = phase_summaries(_timing.measure(step, steps, warmup))
    results["step_cpu_ms"] = _timing.summary(cpu_times[warmup:], 1e3)
    results.update(loss_report(loss_eval, losses))
    return results


def phase_summaries(samples):
    """Step time and its forward / backward / update parts, in ms."""
    return {
        "step_ms": _timing.summary([sum(s) for s in samples], 1e3),
        "forward_ms": _timing.summary([s[0] for s in samples], 1e3),
        "backward_ms": _timing.summary([s[1] for s in samples], 1e3),
        "update_ms": _timing.summary([s[2] for s in samples], 1e3),
    }


def gemm_list():
    """(m, k, n) of every GEMM of one time step: forward, gx and gW."""
    layers = [
        (UNITS, 4 * UNITS),  # l1 upward
        (UNITS, 4 * UNITS),  # l1 lateral
        (UNITS, 4 * UNITS),  # l2 upward
        (UNITS, 4 * UNITS),  # l2 lateral
        (UNITS, VOCAB),  # l3
    ]
    shapes = []
    for n_in, n_out in layers:
        shapes.append((BATCH, n_in, n_out))
        shapes.append((BATCH, n_out, n_in))
        shapes.append((n_out, BATCH, n_in))
    return shapes


def gemm_floor(shapes, repeats):
    """Times ``count`` NumPy products of each ``(count, (m, k, n))`` of ``shapes``."""
    rng = numpy.random.RandomState(2)
    operands = [
        (
            count,
            rng.standard_normal((m, k)).astype(numpy.float32),
            rng.standard_normal((k, n)).astype(numpy.float32),
        )
        for count, (m, k, n) in shapes
    ]
    flops = sum(count * 2 * m * k * n for count, (m, k, n) in shapes)

    def run():
        for count, a, b in operands:
            for _ in range(count):
                numpy.matmul(a, b)

    floor = _timing.summary(_timing.measure(run, repeats, warmup=1), 1e3)
    return {
        "gemm_floor_ms": floor,
        "gemm_gflops_per_step": flops / 1e9,
        "sgemm_gflop_s": flops / (floor["median"] / 1e3) / 1e9,
    }


def bench_gemm_floor(repeats):
    return gemm_floor([(BPTT, shape) for shape in gemm_list()], repeats)


def loss_report(loss_eval, losses):
    """The ``check`` and ``train_losses`` entries of an LM workload's record.

    Only the eval-mode loss is deterministic: training losses depend on each
    framework's dropout masks, so they are reported, not compared.
    """
    return {
        "check": {"loss_eval": loss_eval},
        "train_losses": {"first": losses[0], "last": losses[-1], "steps": len(losses)},
    }


def run_main(argv, workload, bench, floor, threads=False):
    """The command line of an LM workload, one JSON line.

    Runs ``bench(steps, warmup[, threads], device=...)`` and
    ``floor(repeats)``, NumPy's GEMMs on the CPU (skipped with
    ``--no-floor`` or on a GPU).
    """
    doc = sys.modules["__main__"].__doc__ or ""
    parser = argparse.ArgumentParser(description=doc.partition("\n")[0])
    parser.add_argument("--steps", type=int, default=8, help="timed steps")
    parser.add_argument("--warmup", type=int, default=2)
    if threads:
        parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-floor", action="store_true", help="skip the GEMM floor")
    parser.add_argument(
        "--device",
        default="@numpy",
        help="@numpy, or @cupy:N for GPU N (PyTorch: cuda:N)",
    )
    args = parser.parse_args(argv)
    if args.steps <= 0 or args.warmup < 1:
        parser.error("--steps must be positive and --warmup at least 1")
    results = {"vocab": VOCAB, "units": UNITS, "bptt": BPTT, "batch": BATCH}
    extra = (args.threads,) if threads else ()
    if args.device != "@numpy":
        results["device"] = args.device
    results.update(bench(args.steps, args.warmup, *extra, device=args.device))
    if not args.no_floor and args.device == "@numpy":
        results.update(floor(max(3, args.steps // 2)))
    _timing.emit(workload, results)


def main(argv=None):
    run_main(argv, "lstm_lm_step", bench_framework, bench_gemm_floor)


if __name__ == "__main__":
    main()
