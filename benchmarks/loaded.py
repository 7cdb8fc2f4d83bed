"""Training speed on an idle and on a loaded machine, per CPU-threading setting.

Issue 22 ("friendly under load"): with the default CPU threading, training on
a busy 2-core machine ran 3-10x slower than with ``OMP_NUM_THREADS=1``. This
script measures that case directly. Each run is a fresh interpreter (this
script with ``--child``) that trains one workload on random data for a fixed
number of iterations and reports the median seconds per iteration:

  mlp   the MNIST example's MLP 784-1000-1000-10 (``L.Classifier``, Adam),
        batch 100: large GEMMs;
  lstm  a small PTB-style LSTM language model (``L.EmbedID`` 1000x200, two
        ``L.LSTM(200, 200)``, ``L.Linear(200, 1000)``, BPTT 10, batch 20,
        SGD): many small ops and small GEMMs;
  conv  a LeNet-style convnet (two ``L.Convolution2D`` + max pooling, two
        ``L.Linear``), batch 64, SGD: chainer-cpu's NumPy convolutions,
        which use its CPU thread team.

Every workload runs under each setting (``default``: nothing set;
``omp1``: ``OMP_NUM_THREADS=1``; ``par0``: ``CHAINER_CPU_PARALLEL=0``; more
with ``--settings NAME=VAR=VALUE[,VAR=VALUE]``), once on the idle machine and
once while one busy process per usable core (a pure-Python loop, started and
stopped by this script) competes for the CPUs. Runs are interleaved (every
round visits every cell, the order rotated from round to round) and the
table shows medians over rounds, and each loaded cell's ratio to ``omp1``
under the same load. The header names the CPU, the usable cores and NumPy's
BLAS (through ``chainer_cpu._blas.describe``, no threadpoolctl; without
chainer-cpu installed, NumPy's own build information).

Usage::

    python benchmarks/loaded.py [--rounds 3] [--workloads mlp,lstm,conv]
                                [--iterations 1.0] [--settings ...]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.abspath(__file__)

#: Workload name -> (iterations timed, warm-up iterations).
WORKLOADS = {"mlp": (60, 5), "lstm": (40, 3), "conv": (40, 3)}

# Set in a child: it calls core's CPU hook chainer.utils._parallel.engage()
# (chainer-cpu's team and BLAS set-up, where chainer-cpu is installed) before
# each step's forward. Optimizer.update calls the same hook after backward,
# and chainer-cpu's convolutions at their first call: this setting shows
# whether setting up before the first forward changes anything.
_HOOK = "LOADED_BENCH_ENGAGE_PER_STEP"

#: The settings compared by default: name -> environment changes.
SETTINGS = {
    "default": {},
    "omp1": {"OMP_NUM_THREADS": "1"},
    "par0": {"CHAINER_CPU_PARALLEL": "0"},
    "hook": {_HOOK: "1"},
    # Chainer's set-up before issue 22 (team, short spin, malloc retention,
    # no load sampling), made at the first step instead of at import.
    "static": {"CHAINER_CPU_PARALLEL": "static", _HOOK: "1"},
}

# Variables that decide CPU threading; cleared in every child so that only
# the setting's own values count.
_THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_THREAD_TIMEOUT",
    "CHAINER_CPU_PARALLEL",
    "CHAINER_HOST_MEMORY_RETENTION",
)


# --------------------------------------------------------------------------
# The child: one workload, timed.


def _mlp():
    import numpy

    import chainer
    import chainer.functions as F
    import chainer.links as L

    class MLP(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(784, 1000)
                self.l2 = L.Linear(1000, 1000)
                self.l3 = L.Linear(1000, 10)

        def forward(self, x):
            return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    rng = numpy.random.RandomState(0)
    model = L.Classifier(MLP())
    opt = chainer.optimizers.Adam()
    opt.setup(model)
    x = rng.random_sample((100, 784)).astype(numpy.float32)
    t = rng.randint(0, 10, 100).astype(numpy.int32)

    def step():
        opt.update(model, x, t)

    return step


def _lstm():
    import numpy

    import chainer
    import chainer.functions as F
    import chainer.links as L

    vocab, units, bptt, batch = 1000, 200, 10, 20

    class RNNLM(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.embed = L.EmbedID(vocab, units)
                self.l1 = L.LSTM(units, units)
                self.l2 = L.LSTM(units, units)
                self.out = L.Linear(units, vocab)

        def forward(self, x):
            return self.out(self.l2(self.l1(self.embed(x))))

    rng = numpy.random.RandomState(0)
    model = RNNLM()
    opt = chainer.optimizers.SGD(lr=0.1)
    opt.setup(model)
    words = rng.randint(0, vocab, (bptt + 1, batch)).astype(numpy.int32)

    def step():
        loss = 0
        for i in range(bptt):
            loss += F.softmax_cross_entropy(model(words[i]), words[i + 1])
        model.cleargrads()
        loss.backward()
        loss.unchain_backward()
        opt.update()

    return step


def _conv():
    import numpy

    import chainer
    import chainer.functions as F
    import chainer.links as L

    class LeNet(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.c1 = L.Convolution2D(1, 20, 5)
                self.c2 = L.Convolution2D(20, 50, 5)
                self.f1 = L.Linear(800, 500)
                self.f2 = L.Linear(500, 10)

        def forward(self, x):
            h = F.max_pooling_2d(F.relu(self.c1(x)), 2)
            h = F.max_pooling_2d(F.relu(self.c2(h)), 2)
            return self.f2(F.relu(self.f1(h)))

    rng = numpy.random.RandomState(0)
    model = L.Classifier(LeNet())
    opt = chainer.optimizers.MomentumSGD(lr=0.01)
    opt.setup(model)
    x = rng.random_sample((64, 1, 28, 28)).astype(numpy.float32)
    t = rng.randint(0, 10, 64).astype(numpy.int32)

    def step():
        opt.update(model, x, t)

    return step


_BUILDERS = {"mlp": _mlp, "lstm": _lstm, "conv": _conv}


def _child(workload, iterations, warmup):
    import gc

    step = _BUILDERS[workload]()
    if os.environ.get(_HOOK):
        from chainer.utils import _parallel

        plain = step

        def step():
            _parallel.engage()
            plain()

    for _ in range(warmup):
        step()
    times = []
    cpu0 = time.process_time()
    for _ in range(iterations):
        gc.collect()
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    cpu = (time.process_time() - cpu0) / iterations
    print(json.dumps({"step_s": statistics.median(times), "cpu_s": cpu}))


# --------------------------------------------------------------------------
# The parent: load, interleaving, table.


def _busy():
    while True:
        pass


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class _Load:
    """One busy Python process per usable core while the block runs."""

    def __enter__(self):
        code = "while True:\n    pass\n"
        self.procs = [
            subprocess.Popen([sys.executable, "-c", code]) for _ in range(_cores())
        ]
        time.sleep(0.5)  # let the scheduler see them
        return self

    def __exit__(self, *exc):
        for proc in self.procs:
            proc.kill()
        for proc in self.procs:
            proc.wait()


def _run_child(workload, setting_env, iterations, warmup):
    env = {k: v for k, v in os.environ.items() if k not in _THREAD_VARS}
    env.update(setting_env)
    cmd = [sys.executable, HERE, "--child", workload, str(iterations), str(warmup)]
    for _attempt in range(3):
        # Retried: on a shared checkout a sibling's half-saved edit can break
        # one import.
        proc = subprocess.run(
            cmd, env=env, capture_output=True, text=True, timeout=1800
        )
        if proc.returncode == 0:
            break
        time.sleep(5)
    else:
        raise RuntimeError(f"{workload} child failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _blas_name():
    try:
        from chainer_cpu import _blas
    except ImportError:
        import numpy

        try:  # mode= came in NumPy 1.25
            config = numpy.show_config(mode="dicts")
        except TypeError:
            config = {}
        blas = config.get("Build Dependencies", {}).get("blas", {})
        name = blas.get("name", "unknown")
        return f"{name} (chainer-cpu not installed: its thread team is off)"
    return _blas.describe()


def _header():
    import numpy

    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",) * 3
    return [
        f"CPU: {_cpu_name()}; usable cores: {_cores()} of {os.cpu_count()}",
        f"NumPy {numpy.__version__}; BLAS: {_blas_name()}",
        f"Python {platform.python_version()}; load average at start: "
        + ", ".join(f"{v:.2f}" for v in load),
    ]


def _parse_settings(items):
    settings = dict(SETTINGS)
    for item in items or ():
        name, _, assignments = item.partition("=")
        env = {}
        for pair in assignments.split(","):
            var, sep, value = pair.partition("=")
            if not sep or not var:
                raise SystemExit(f"--settings {item!r}: expected NAME=VAR=VALUE,...")
            env[var] = value
        settings[name] = env
    return settings


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workloads", default="mlp,lstm,conv")
    parser.add_argument(
        "--iterations", type=float, default=1.0, help="scale the iteration counts"
    )
    parser.add_argument(
        "--settings", action="append", help="extra setting NAME=VAR=VALUE[,...]"
    )
    parser.add_argument("--only", help="comma-separated setting names to run")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        workload, iterations, warmup = args.child
        _child(workload, int(iterations), int(warmup))
        return

    workloads = [w for w in args.workloads.split(",") if w]
    for w in workloads:
        if w not in WORKLOADS:
            raise SystemExit(f"unknown workload {w!r}; choose from {sorted(WORKLOADS)}")
    settings = _parse_settings(args.settings)
    if args.only:
        settings = {k: settings[k] for k in args.only.split(",")}
    names = list(settings)
    for line in _header():
        print(line)
    results = {}  # (workload, load, setting) -> [step_s]
    for r in range(args.rounds):
        for load in ("idle", "busy") if r % 2 == 0 else ("busy", "idle"):
            order = names[r % len(names) :] + names[: r % len(names)]
            ctx = _Load() if load == "busy" else None
            if ctx is not None:
                ctx.__enter__()
            try:
                for w in workloads:
                    iterations, warmup = WORKLOADS[w]
                    iterations = max(3, round(iterations * args.iterations))
                    for s in order:
                        out = _run_child(w, settings[s], iterations, warmup)
                        results.setdefault((w, load, s), []).append(out["step_s"])
                        print(
                            f"  round {r + 1} {load:4} {w:4} {s:8} "
                            f"{1e3 * out['step_s']:8.1f} ms/it "
                            f"(cpu {1e3 * out['cpu_s']:.1f} ms)",
                            flush=True,
                        )
            finally:
                if ctx is not None:
                    ctx.__exit__(None, None, None)
    print()
    print(f"Median ms per iteration over {args.rounds} rounds (x: ratio to omp1)")
    print()
    cols = [f"{load} {s}" for load in ("idle", "busy") for s in names]
    print("| workload | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for w in workloads:
        cells = []
        for load in ("idle", "busy"):
            base = results.get((w, load, "omp1"))
            base = statistics.median(base) if base else None
            for s in names:
                med = statistics.median(results[(w, load, s)])
                ratio = f" ({med / base:.2f}x)" if base else ""
                cells.append(f"{1e3 * med:.1f}{ratio}")
        print(f"| {w} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
