"""How costs grow: graph size, batch size and unrolled length (issue 24's scale checks).

Three sweeps, written against Chainer's public API:

- ``graph``: per-op time of a chain of small elementwise ops (``per_op.py``'s
  four ops on 10-element arrays) for graphs of 10^2 .. 10^5 nodes, forward
  and backward. Flat lines mean the per-op cost does not grow with the graph.
- ``batch``: the MLP 784-1000-1000-10 Adam step of ``mlp_step.py`` at batch
  sizes 1 .. 1024, as microseconds per example, beside the same step's GEMMs
  in bare NumPy per example: the per-example cost should fall to that floor.
- ``bptt``: peak memory of the LSTM LM of ``lstm_lm_step.py`` (two 650-unit
  ``L.LSTM`` layers, vocabulary 10k, batch 20) over one forward and backward
  unrolled 35 .. 350 steps (NumPy allocations, by ``tracemalloc``), and the
  step time. Memory should grow linearly with the unrolled length.

Writes ``benchmarks/scale/results.json`` and one SVG line chart per sweep
(``graph.svg``, ``batch.svg``, ``bptt.svg``) next to it, and prints a table.
Figures hold for the machine they were measured on; the JSON names it.

Usage: ``python benchmarks/scale.py [--sweeps graph,batch,bptt] [--quick]``;
``--replot`` redraws the charts from ``results.json`` only.
"""

import argparse
import gc
import json
import math
import os
import platform
import statistics
import sys
import time
import tracemalloc

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "workloads"))

import lstm_lm_step  # noqa: E402
import mlp_step  # noqa: E402
import per_op  # noqa: E402

OUT = os.path.join(HERE, "scale")


def _median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def sweep_graph(sizes, repeats):
    """Per-op forward and backward microseconds for chains of ``sizes`` ops."""
    import chainer

    rng = numpy.random.RandomState(0)
    a = chainer.Variable(numpy.full(per_op.SIZE, 1.01, numpy.float32))
    b = chainer.Variable(rng.uniform(-1, 1, per_op.SIZE).astype(numpy.float32))
    rows = []
    for n_ops in sizes:
        fwd, bwd = [], []
        for _ in range(repeats):
            x = chainer.Variable(rng.uniform(-1, 1, per_op.SIZE).astype(numpy.float32))
            gc.collect()
            t0 = time.perf_counter()
            y = per_op.chain(x, a, b, n_ops)
            t1 = time.perf_counter()
            y.grad = numpy.ones(per_op.SIZE, numpy.float32)
            y.backward()
            t2 = time.perf_counter()
            fwd.append((t1 - t0) / n_ops * 1e6)
            bwd.append((t2 - t1) / n_ops * 1e6)
            del x, y
            a.cleargrad()
            b.cleargrad()
        rows.append(
            {
                "ops": n_ops,
                "fwd_us_per_op": statistics.median(fwd),
                "bwd_us_per_op": statistics.median(bwd),
            }
        )
    return rows


def sweep_batch(batches, repeats):
    """MLP Adam step and its bare-NumPy GEMMs, microseconds per example."""
    import chainer

    rows = []
    for batch in batches:
        model = mlp_step.build_model(mlp_step.make_weights(mlp_step.SIZES))
        optimizer = chainer.optimizers.Adam()
        optimizer.setup(model)
        x, t = mlp_step.make_batches(mlp_step.SIZES, batch, 1)[0]
        xv = chainer.Variable(x, requires_grad=False)

        def step(model=model, optimizer=optimizer, xv=xv, t=t):
            loss = mlp_step.softmax_cross_entropy(model(xv), t)
            model.cleargrads()
            loss.backward()
            optimizer.update()

        step()
        step_s = _median_time(step, repeats)
        rng = numpy.random.RandomState(2)
        operands = [
            (
                rng.standard_normal((m, k)).astype(numpy.float32),
                rng.standard_normal((k, n)).astype(numpy.float32),
            )
            for m, k, n in mlp_step.gemm_list(mlp_step.SIZES, batch)
        ]

        def gemms(operands=operands):
            for p, q in operands:
                numpy.matmul(p, q)

        gemms()
        floor_s = _median_time(gemms, repeats)
        rows.append(
            {
                "batch": batch,
                "step_us_per_example": step_s / batch * 1e6,
                "gemm_us_per_example": floor_s / batch * 1e6,
            }
        )
    return rows


def sweep_bptt(lengths, repeats):
    """Peak NumPy memory (MiB) and time (ms) of one LSTM LM forward and backward."""
    import chainer
    import chainer.functions as F

    words, offsets = lstm_lm_step.make_corpus()
    model = lstm_lm_step.build_model(lstm_lm_step.make_weights())
    rows = []
    for length in lengths:

        def unrolled(length=length):
            model.reset_state()
            loss = 0
            for step in range(length):
                pos = (offsets + step) % (len(words) - 1)
                x, t = words[pos], words[pos + 1]
                loss += F.softmax_cross_entropy(model(x), t)
            model.cleargrads()
            loss.backward()
            loss.unchain_backward()

        with chainer.using_config("train", True):
            unrolled()
            gc.collect()
            tracemalloc.start()
            unrolled()
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            seconds = _median_time(unrolled, repeats)
        rows.append(
            {"bptt": length, "peak_mib": peak / 2**20, "step_ms": seconds * 1e3}
        )
    return rows


def svg_chart(title, x_label, y_label, series, log_x=True, path=None, log_y=False):
    """Writes a small SVG line chart; ``series`` is ``{name: [(x, y), ...]}``."""
    width, height, left, bottom, top, right = 640, 400, 70, 50, 40, 160
    points = [p for values in series.values() for p in values]
    xs = [math.log10(x) if log_x else x for x, _ in points]
    ys = [y for _, y in points]
    x0, x1 = min(xs), max(xs)
    x1 = x1 if x1 > x0 else x0 + 1
    if log_y:
        lo = math.floor(math.log10(min(y for y in ys if y > 0)))
        hi = math.ceil(math.log10(max(ys)))
        hi = hi if hi > lo else lo + 1
        y_ticks = [10.0**e for e in range(lo, hi + 1)]
    else:
        y1 = max(ys) * 1.1 or 1.0
        y_ticks = [y1 * i / 4 for i in range(5)]

    def px(x):
        v = math.log10(x) if log_x else x
        return left + (v - x0) / (x1 - x0) * (width - left - right)

    def py(y):
        frac = (math.log10(y) - lo) / (hi - lo) if log_y else y / y1
        return height - bottom - frac * (height - top - bottom)

    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="14">'
        f"{title}</text>",
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" '
        f'y2="{height - bottom}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" '
        'stroke="black"/>',
        f'<text x="{(left + width - right) / 2}" y="{height - 12}" '
        f'text-anchor="middle">{x_label}</text>',
        f'<text x="16" y="{(top + height - bottom) / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {(top + height - bottom) / 2})">{y_label}</text>',
    ]
    for y in y_ticks:
        out.append(
            f'<text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:.3g}</text>'
        )
    for x in sorted({x for x, _ in points}):
        out.append(
            f'<text x="{px(x):.1f}" y="{height - bottom + 16}" '
            f'text-anchor="middle">{x:g}</text>'
        )
    for i, (name, values) in enumerate(series.items()):
        colour = colours[i % len(colours)]
        path_d = " ".join(
            f"{'M' if j == 0 else 'L'}{px(x):.1f},{py(y):.1f}"
            for j, (x, y) in enumerate(values)
        )
        out.append(
            f'<path d="{path_d}" fill="none" stroke="{colour}" stroke-width="2"/>'
        )
        for x, y in values:
            out.append(
                f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>'
            )
        out.append(
            f'<text x="{width - right + 10}" y="{top + 20 + 18 * i}" '
            f'fill="{colour}">{name}</text>'
        )
    out.append("</svg>")
    text = "\n".join(out) + "\n"
    if path is not None:
        _write_atomic(path, text)
    return text


def _write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def plot(results):
    """Writes one SVG chart per sweep present in ``results`` into ``OUT``."""
    rows = results.get("graph")
    if rows:
        svg_chart(
            "Per-op cost against graph size (10-element ops)",
            "nodes in the graph",
            "µs per op",
            {
                "forward": [(r["ops"], r["fwd_us_per_op"]) for r in rows],
                "backward": [(r["ops"], r["bwd_us_per_op"]) for r in rows],
            },
            path=os.path.join(OUT, "graph.svg"),
        )
    rows = results.get("batch")
    if rows:
        svg_chart(
            "MLP 784-1000-1000-10 Adam step: cost per example",
            "batch size",
            "µs per example (log scale)",
            {
                "train step": [(r["batch"], r["step_us_per_example"]) for r in rows],
                "its GEMMs (NumPy)": [
                    (r["batch"], r["gemm_us_per_example"]) for r in rows
                ],
            },
            path=os.path.join(OUT, "batch.svg"),
            log_y=True,
        )
    rows = results.get("bptt")
    if rows:
        svg_chart(
            "LSTM LM (2 x 650 units, vocab 10k, batch 20): peak memory",
            "unrolled steps (BPTT)",
            "peak MiB (NumPy allocations)",
            {"forward + backward": [(r["bptt"], r["peak_mib"]) for r in rows]},
            log_x=False,
            path=os.path.join(OUT, "bptt.svg"),
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweeps", default="graph,batch,bptt")
    parser.add_argument("--quick", action="store_true", help="smaller sweeps")
    parser.add_argument(
        "--replot", action="store_true", help="only redraw the charts from results.json"
    )
    args = parser.parse_args(argv)
    if args.replot:
        with open(os.path.join(OUT, "results.json"), encoding="utf-8") as f:
            plot(json.load(f))
        return 0
    sweeps = [s.strip() for s in args.sweeps.split(",") if s.strip()]
    unknown = sorted(set(sweeps) - {"graph", "batch", "bptt"})
    if unknown:
        parser.error("unknown sweep(s): %s" % ", ".join(unknown))
    os.makedirs(OUT, exist_ok=True)
    results = {
        "machine": f"{platform.platform()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs",
        "numpy": numpy.__version__,
    }
    if "graph" in sweeps:
        sizes = [100, 1000, 10000] if args.quick else [100, 1000, 10000, 100000]
        results["graph"] = sweep_graph(sizes, 3 if args.quick else 5)
    if "batch" in sweeps:
        sizes = [1, 16, 256] if args.quick else [1, 4, 16, 64, 256, 1024]
        results["batch"] = sweep_batch(sizes, 3 if args.quick else 7)
    if "bptt" in sweeps:
        lengths = [35, 70] if args.quick else [35, 70, 175, 350]
        results["bptt"] = sweep_bptt(lengths, 1 if args.quick else 2)
    plot(results)
    _write_atomic(
        os.path.join(OUT, "results.json"), json.dumps(results, indent=1) + "\n"
    )
    for name in ("graph", "batch", "bptt"):
        for row in results.get(name, ()):
            print(name, " ".join(f"{k}={v:.4g}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
