"""Runs the benchmark workloads side by side with Chainer 7.8.1 (and PyTorch).

Every workload runs once per side per round, the sides interleaved (A B A B,
the order reversed every other round) so that drift in the machine's load hits
all of them alike. The figures are medians over rounds of each run's median;
ratios are taken per round and then summarised. See ``benchmarks/README.md``.

Sides (each a Python interpreter, skipped when its virtualenv is missing):
  ours         the interpreter running this script (this project)
  ours-np126   ``.bench/ours``: this project on NumPy 1.26.4, like Chainer's
  chainer7     ``.bench/chainer7``: Chainer 7.8.1 on NumPy 1.26.4
  torch        ``.bench/torch``: PyTorch CPU, same math (per-op and MLP)

Usage: ``python benchmarks/run.py [--rounds N] [--quick] [--workloads a,b]``
"""

import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BENCH = os.path.join(ROOT, ".bench")
WORKLOADS_DIR = os.path.join(HERE, "workloads")
THREADS = "2"

SETUP_CHAINER7 = (
    "python3 -m venv .bench/chainer7 && "
    ".bench/chainer7/bin/pip install 'setuptools<70' wheel threadpoolctl && "
    ".bench/chainer7/bin/pip install --no-build-isolation chainer==7.8.1 "
    "'numpy==1.26.4'"
)

# Workload name -> (script per side kind, args for a normal run, args for --quick).
WORKLOADS = {
    "per_op": (
        {"chainer": "per_op.py", "torch": "torch_per_op.py"},
        ["--repeats", "11"],
        ["--repeats", "5", "--chains", "5"],
    ),
    "mlp_step": (
        {"chainer": "mlp_step.py", "torch": "torch_mlp_step.py"},
        ["--steps", "20"],
        ["--steps", "8"],
    ),
    "mlp_inference": (
        {"chainer": "mlp_inference.py", "torch": "torch_mlp_inference.py"},
        ["--repeats", "20"],
        ["--repeats", "6"],
    ),
    "import_time": (
        {"chainer": "import_time.py"},
        ["--repeats", "3"],
        ["--repeats", "2"],
    ),
    "catalogue_ops": (
        {"chainer": "catalogue_ops.py"},
        ["--repeats", "11"],
        ["--repeats", "5", "--calls", "100"],
    ),
    # Steady-state steps: 12 warm-up steps, as chainer-cpu's convolutions
    # race their two engines over the first 6 calls of each geometry where
    # oneDNN is installed (chainer_cpu._onednn.pick), and a filter
    # gradient's race counts only the calls after a forward on the same
    # engine (its key says whether the forward kept its patches): the
    # VGG-style step settled after 9 steps.
    "lenet_step": (
        {"chainer": "convnet_step.py", "torch": "torch_convnet_step.py"},
        ["lenet", "--steps", "10", "--warmup", "12"],
        ["lenet", "--steps", "4"],
    ),
    "vgg_step": (
        {"chainer": "convnet_step.py", "torch": "torch_convnet_step.py"},
        ["vgg", "--steps", "5", "--warmup", "12"],
        ["vgg", "--steps", "2", "--warmup", "1"],
    ),
    "lstm_lm_step": (
        {"chainer": "lstm_lm_step.py", "torch": "torch_lstm_lm_step.py"},
        ["--steps", "4", "--no-floor"],
        ["--steps", "2", "--warmup", "1", "--no-floor"],
    ),
    "nstep_lstm_lm_step": (
        {"chainer": "nstep_lstm_lm_step.py", "torch": "torch_nstep_lstm_lm_step.py"},
        ["--steps", "4", "--no-floor"],
        ["--steps", "2", "--warmup", "1", "--no-floor"],
    ),
    "trainer_mlp_step": (
        {"chainer": "trainer_mlp_step.py", "torch": "torch_trainer_mlp_step.py"},
        ["--repeats", "3"],
        ["--repeats", "1", "--epochs", "1"],
    ),
    "trainer_step": (
        {"chainer": "trainer_step.py"},
        ["--repeats", "7"],
        ["--repeats", "3", "--epochs", "1"],
    ),
}

# Workloads whose PyTorch twin exists (others show a dash for PyTorch).
TORCH_WORKLOADS = (
    "per_op",
    "mlp_step",
    "mlp_inference",
    "lenet_step",
    "vgg_step",
    "lstm_lm_step",
    "nstep_lstm_lm_step",
    "trainer_mlp_step",
)

# Workload -> rows of (label, result key, floor key).
ROWS = {
    "per_op": [
        ("small-op chain, fwd+bwd, µs/op", "total_us_per_op", "numpy_total_us_per_op"),
        ("small-op chain, forward, µs/op", "fwd_us_per_op", "numpy_fwd_us_per_op"),
        ("small-op chain, backward, µs/op", "bwd_us_per_op", "numpy_bwd_us_per_op"),
    ],
    "mlp_step": [
        (
            "MLP 784-1000-1000-10 Adam train step, batch 100, ms",
            "step_ms",
            "gemm_floor_ms",
        ),
        ("MLP step: forward + loss, ms", "forward_ms", None),
        ("MLP step: cleargrads + backward, ms", "backward_ms", None),
        ("MLP step: Adam update, ms", "update_ms", "adam_floor_ms"),
    ],
    "mlp_inference": [
        (
            "MLP 784-1000-1000-10 inference, batch 1000 (L.Linear, F.relu), ms",
            "inference_ms",
            "gemm_floor_ms",
        ),
    ],
    "import_time": [
        ("`import chainer`, s", "import_chainer_s", "import_numpy_s"),
    ],
    "catalogue_ops": [
        ("F.relu, fwd+bwd, µs/call", "relu_total_us", "relu_numpy_us"),
        ("F.sum, fwd+bwd, µs/call", "sum_total_us", "sum_numpy_us"),
        (
            "F.softmax_cross_entropy, fwd+bwd, µs/call",
            "softmax_cross_entropy_total_us",
            "softmax_cross_entropy_numpy_us",
        ),
    ],
    "lenet_step": [
        ("LeNet train step, batch 64, 28x28, SGD, ms", "step_ms", None),
    ],
    "vgg_step": [
        ("VGG-style step with batch norm, batch 64, 32x32, SGD, ms", "step_ms", None),
    ],
    "lstm_lm_step": [
        (
            "LSTM LM step (vocab 10k, 650 units, BPTT 35, batch 20), ms",
            "step_ms",
            None,
        ),
    ],
    "nstep_lstm_lm_step": [
        (
            "LSTM LM step, L.NStepLSTM vs nn.LSTM over the BPTT window, ms",
            "step_ms",
            None,
        ),
    ],
    "trainer_mlp_step": [
        (
            "MLP 784-1000-1000-10 through Trainer (Adam, batch 100, "
            "Evaluator, LogReport, PrintReport, ProgressBar), ms/iter",
            "iter_ms",
            None,
        ),
    ],
    "trainer_step": [
        (
            "Tiny MLP through Trainer with the usual extensions, µs/iter",
            "iter_us",
            "loop_us",
        ),
        ("Same updates as a plain loop, µs/iter", "loop_us", None),
        ("Trainer overhead (trainer - plain loop), µs/iter", "overhead_us", None),
    ],
}

FLOOR_NAMES = {
    "numpy_total_us_per_op": "bare NumPy ops",
    "numpy_fwd_us_per_op": "bare NumPy ops",
    "numpy_bwd_us_per_op": "bare NumPy ops",
    "gemm_floor_ms": "GEMMs in NumPy",
    "adam_floor_ms": "in-place Adam in NumPy",
    "import_numpy_s": "`import numpy`",
    "relu_numpy_us": "NumPy forward only",
    "sum_numpy_us": "NumPy forward only",
    "softmax_cross_entropy_numpy_us": "NumPy forward only",
    "loop_us": "plain loop without Trainer",
}

_PROBE = r"""
import json, sys
import numpy
info = {"numpy": numpy.__version__, "python": sys.version.split()[0]}
import os
info["nice"] = os.nice(0)
try:
    with open("/proc/self/autogroup") as f:
        info["autogroup"] = f.read().strip()
except OSError:
    pass
try:
    import chainer
    info["chainer"] = chainer.__version__
    info["chainer_path"] = chainer.__file__
except Exception as exc:
    info["chainer"] = None
    info["chainer_error"] = repr(exc)
try:
    import torch
    info["torch"] = torch.__version__
except Exception:
    pass
try:
    from chainer_cpu import _blas
    info["blas_line"] = _blas.describe()
    from chainer_cpu import _gemm
    info["gemm"] = _gemm.choice()
    info["gemm_line"] = _gemm.describe()
    from chainer_cpu import _onednn
    info["conv"] = _onednn.choice()
    info["conv_line"] = _onednn.describe()
except Exception:
    pass
try:
    from threadpoolctl import threadpool_info
    info["blas"] = [
        {k: p.get(k) for k in
         ("internal_api", "version", "architecture", "num_threads", "filepath")}
        for p in threadpool_info()
    ]
except ImportError:
    try:
        deps = numpy.show_config(mode="dicts")["Build Dependencies"]
        info["blas"] = [{"internal_api": deps["blas"].get("name"),
                         "version": deps["blas"].get("version"),
                         "note": "threadpoolctl not installed; build-time info"}]
    except Exception as exc:
        info["blas"] = [{"note": "threadpoolctl not installed: " + repr(exc)}]
print(json.dumps(info))
"""


def bench_env():
    """The benchmark subprocesses' environment: threads pinned, quirks unset."""
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = THREADS
    # Workarounds for old OpenBLAS bugs that slow a current NumPy; unset both.
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    env["PYTHONHASHSEED"] = "0"
    return env


def _raise_priority():
    os.setsid()
    try:
        os.nice(-15)
    except OSError:
        return  # not root: run at normal priority; the probe records which
    # With scheduler autogroups, a new session gets its own group at nice 0 and
    # a process's nice value counts only inside its group: raise the group too.
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write("-15")
    except OSError:
        pass


def run_python(python, args, timeout, env=None):
    """Runs ``python args`` in its own session at raised priority.

    ``env`` holds variables set on top of :func:`bench_env`'s.
    """
    return subprocess.run(
        [python, *args],
        env={**bench_env(), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_raise_priority,
        check=False,
    )


# The sides that run this project: this interpreter (with chainer-cpu's
# optional engines where installed: oneMKL's GEMM, oneDNN's convolutions),
# the same without them ("ours-plain", only where they are in use), and
# .bench/ours (NumPy 1.26).
OURS_SIDES = ("ours", "ours-plain", "ours-np126")
# Set for the "ours-plain" side: NumPy's matmul and chainer-cpu's own
# convolution engine.
PLAIN_ENGINES = {"CHAINER_CPU_GEMM": "numpy", "CHAINER_CPU_CONV": "numpy"}


def find_sides():
    """Maps side name to (python, kind, env); reports the missing anchors."""
    sides = {"ours": (sys.executable, "chainer", {})}
    missing = []
    for name, folder, kind in (
        ("ours-np126", "ours", "chainer"),
        ("chainer7", "chainer7", "chainer"),
        ("torch", "torch", "torch"),
    ):
        python = os.path.join(BENCH, folder, "bin", "python")
        if os.path.exists(python):
            sides[name] = (python, kind, {})
        else:
            missing.append(name)
    return sides, missing


def probe(python, env=None):
    out = run_python(python, ["-c", _PROBE], timeout=120, env=env)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_workload(python, script, args, timeout, env=None):
    """Runs one workload script and returns its JSON record or an error dict."""
    path = os.path.join(WORKLOADS_DIR, script)
    try:
        out = run_python(python, [path, *args], timeout, env)
    except subprocess.TimeoutExpired:
        return {"error": "timed out after %d s" % timeout}
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        tail = out.stderr.strip().splitlines()[-3:]
        return {"error": " | ".join(tail) or "exit %d" % out.returncode}
    return json.loads(lines[-1])


def side_label(name, info):
    numpy_version = info.get("numpy", "?")
    if name.startswith("ours"):
        if name == "ours-plain":
            return "ours (NumPy %s, no extras)" % numpy_version
        extras = [
            label
            for key, values, label in (
                ("gemm", ("mkl",), "oneMKL"),
                ("conv", ("onednn", "race"), "oneDNN"),
            )
            if info.get(key) in values
        ]
        if extras:
            return "ours (NumPy %s, %s)" % (numpy_version, " + ".join(extras))
        return "ours (NumPy %s)" % numpy_version
    if name == "chainer7":
        return "Chainer %s (NumPy %s)" % (info.get("chainer"), numpy_version)
    return "PyTorch %s CPU" % info.get("torch", "?").split("+")[0]


def _spread(values, fmt):
    med = statistics.median(values)
    if len(values) == 1:
        return fmt % med
    return (fmt + " (" + fmt + "\u2013" + fmt + ")") % (med, min(values), max(values))


def _fmt_for(values):
    med = statistics.median(values)
    if med >= 100:
        return "%.0f"
    if med >= 10:
        return "%.1f"
    if med >= 1:
        return "%.2f"
    return "%.3f"


def _ratios(numerators, denominators):
    """Round-by-round quotients, skipping rounds where either side failed."""
    return [
        n / d
        for n, d in zip(numerators, denominators, strict=True)
        if n is not None and d
    ]


def per_round(records, side, workload, key):
    """Per-round medians of ``key`` for one side, None where a round failed."""
    values = []
    for rnd in records:
        rec = rnd.get((side, workload))
        if rec is None or "error" in rec or key not in rec:
            values.append(None)
        else:
            values.append(rec[key]["median"])
    return values


def build_table(records, sides, infos, labels, workloads):
    ours_sides = [s for s in OURS_SIDES if s in sides]
    other = [s for s in ("chainer7", "torch") if s in sides]
    header = ["workload"] + [labels[s] for s in ours_sides + other]
    if "chainer7" in sides:
        header += ["Chainer ÷ %s" % labels[s] for s in ours_sides]
    header.append("floor")
    numpy_versions = {side: infos[side].get("numpy", "?") for side in sides}
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for workload in workloads:
        for label, key, floor_key in ROWS[workload]:
            cells = [label]
            for side in ours_sides + other:
                vals = [
                    v for v in per_round(records, side, workload, key) if v is not None
                ]
                if vals:
                    cells.append(_spread(vals, _fmt_for(vals)))
                elif side == "torch" and workload not in TORCH_WORKLOADS:
                    cells.append("—")
                else:
                    cells.append("failed")
            if "chainer7" in sides:
                anchor = per_round(records, "chainer7", workload, key)
                for side in ours_sides:
                    mine = per_round(records, side, workload, key)
                    ratios = _ratios(anchor, mine)
                    cells.append(_spread(ratios, "%.2f\u00d7") if ratios else "—")
            floors = []
            for side in ours_sides if floor_key else ():
                vals = [v for v in per_round(records, side, workload, floor_key) if v]
                if vals:
                    floors.append(
                        "NumPy %s %s"
                        % (numpy_versions[side], _spread(vals, _fmt_for(vals)))
                    )
            cells.append(
                FLOOR_NAMES[floor_key] + ", " + "; ".join(floors) if floors else "—"
            )
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def check_agreement(records, sides, workloads):
    """Compares each side's ``check`` values with Chainer 7.8.1's (last round)."""
    notes = []
    if "chainer7" not in sides:
        return notes
    last = records[-1]
    for workload in workloads:
        anchor = last.get(("chainer7", workload), {}).get("check")
        if not anchor:
            continue
        for side in sides:
            if side == "chainer7":
                continue
            mine = last.get((side, workload), {}).get("check")
            if not mine:
                continue
            bad = [
                "%s %.6g vs %.6g" % (k, mine[k], anchor[k])
                for k in anchor
                if k in mine and abs(mine[k] - anchor[k]) > 1e-3 * (1 + abs(anchor[k]))
            ]
            verdict = "differ: " + "; ".join(bad) if bad else "agree"
            notes.append(
                "- %s, %s: check values %s with Chainer 7.8.1's"
                % (workload, side, verdict)
            )
    return notes


def floor_fractions(records, sides, labels, workloads):
    """Each side's MLP step as a multiple of its own NumPy's GEMM floor."""
    if "mlp_step" not in workloads:
        return []
    parts = []
    for side in sides:
        steps = per_round(records, side, "mlp_step", "step_ms")
        floors = per_round(records, side, "mlp_step", "gemm_floor_ms")
        ratios = _ratios(steps, floors)
        if ratios:
            parts.append("%s %s" % (labels[side], _spread(ratios, "%.2f\u00d7")))
    if not parts:
        return []
    return ["- mlp_step, step ÷ own GEMM floor: " + "; ".join(parts)]


def torch_ratios(records, sides, labels, workloads):
    """Ours ÷ PyTorch per round, for the workloads with a PyTorch twin."""
    if "torch" not in sides:
        return []
    lines = []
    for workload in workloads:
        if workload not in TORCH_WORKLOADS:
            continue
        label, key, _ = ROWS[workload][0]
        anchor = per_round(records, "torch", workload, key)
        parts = []
        for side in OURS_SIDES:
            if side in sides:
                ratios = _ratios(per_round(records, side, workload, key), anchor)
                if ratios:
                    parts.append(
                        "%s %s" % (labels[side], _spread(ratios, "%.2f\u00d7"))
                    )
        if parts:
            lines.append("- %s ÷ PyTorch, %s: %s" % (workload, label, "; ".join(parts)))
    return lines


def failures(records, labels):
    seen = {}
    for rnd in records:
        for (side, workload), rec in rnd.items():
            if "error" in rec:
                seen.setdefault((side, workload), rec["error"])
    return [
        "- %s on %s failed: `%s`" % (workload, labels.get(side, side), err)
        for (side, workload), err in sorted(seen.items())
    ]


def blas_lines(infos, labels):
    lines = []
    for side, info in infos.items():
        libs = info.get("blas") or [{"note": "no BLAS found"}]
        desc = "; ".join(
            ", ".join("%s=%s" % (k, v) for k, v in lib.items() if v and k != "filepath")
            for lib in libs
        )
        if info.get("blas_line"):
            desc += "; " + info["blas_line"]
        if info.get("gemm_line"):
            desc += "; chainer-cpu's GEMM: " + info["gemm_line"]
        if info.get("conv_line"):
            desc += "; float32 convolutions: " + info["conv_line"]
        lines.append(
            "- %s: `%s` — %s" % (labels[side], info.get("python_path", "?"), desc)
        )
    return lines


def cpu_model(path="/proc/cpuinfo"):
    """The CPU's model name as the OS reports it (Linux), else the platform's.

    Virtual machines often show a generic name ("Intel(R) Xeon(R)
    Processor") for different CPUs, so the family and model numbers follow
    it where the OS gives them.
    """
    fields = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    break  # the first CPU's block
                key, _, value = line.partition(":")
                fields.setdefault(key.strip().lower(), value.strip())
    except OSError:
        pass
    name = fields.get("model name")
    if not name:
        return platform.processor() or platform.machine()
    if fields.get("cpu family") and fields.get("model"):
        name += " (family %s, model %s)" % (fields["cpu family"], fields["model"])
    return name


def blas_kernel(info):
    """The BLAS kernel set of a side: OpenBLAS's core name, else its library."""
    for lib in info.get("blas") or ():
        if lib.get("architecture"):
            api = lib.get("internal_api", "BLAS")
            if api == "openblas":
                api = "OpenBLAS"  # as NumPy's configuration names it
            return "%s %s" % (api, lib["architecture"])
    line = info.get("blas_line")
    if line:
        words = line.split()
        known = [w for w in words if w.startswith("core=")]
        if known:
            return "OpenBLAS " + known[0][5:]
        # OpenBLAS's configuration names the kernel after the build flags.
        flags = {"USE64BITINT", "DYNAMIC_ARCH", "NO_AFFINITY", "NO_LAPACK"}
        for word in words[2:]:
            if word.isalnum() and word not in flags and not word[0].isdigit():
                return "OpenBLAS " + word
    return "BLAS unknown"


def machine_kind(info):
    """The heading of a machine kind's section: CPU model, CPUs, BLAS kernel."""
    return "%s, %d CPUs, %s" % (cpu_model(), os.cpu_count() or 0, blas_kernel(info))


def generic_kernel_notes(infos, labels):
    """A warning line per side whose OpenBLAS fell back to its generic kernels."""
    notes = []
    for side, info in infos.items():
        if "Prescott" in blas_kernel(info):
            notes.append(
                "- %s: its OpenBLAS does not recognise this CPU and runs its generic "
                "`Prescott` kernels (about half the GEMM speed); compare it only with "
                "sides on the same kernels." % labels[side]
            )
    return notes


SECTION = "## Machine: "


def merge_report(old_text, kind, section_lines):
    """The results file with ``kind``'s section replaced (or added), others kept.

    The file holds one section per machine kind, headed ``## Machine: <kind>``
    (a CPU model, its CPU count and the BLAS kernel NumPy uses), so that
    figures from one machine never stand for another's.
    """
    sections = []
    current = None
    for line in (old_text or "").splitlines():
        if line.startswith(SECTION):
            current = [line]
            sections.append(current)
        elif current is not None:
            current.append(line)
    heading = SECTION + kind
    new = [heading, "", *section_lines]
    kept = [sec for sec in sections if sec[0] != heading]
    out = [
        "# Benchmark results",
        "",
        "One section per machine kind (CPU model, CPU count, BLAS kernel), each "
        "from the latest `python benchmarks/run.py` run on such a machine.",
        "",
    ]
    for sec in sorted([new, *kept], key=lambda lines: lines[0]):
        while sec and not sec[-1].strip():
            sec = sec[:-1]
        out += [*sec, ""]
    return "\n".join(out)


def write_atomic(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".results-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Benchmarks this project against Chainer 7.8.1 (and PyTorch)."
    )
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds")
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument(
        "--workloads",
        default=",".join(WORKLOADS),
        help="comma-separated subset of: " + ", ".join(WORKLOADS),
    )
    parser.add_argument(
        "--output",
        default=os.path.join(HERE, "results.md"),
        help="markdown report to write (default benchmarks/results.md)",
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--timeout", type=int, default=180, help="per run, seconds")
    args = parser.parse_args(argv)
    args.workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = sorted(set(args.workloads) - set(WORKLOADS))
    if unknown:
        parser.error("unknown workload(s): %s" % ", ".join(unknown))
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    started = time.time()
    sides, missing = find_sides()
    if "chainer7" in missing:
        print(
            "Chainer 7.8.1 anchor not found at .bench/chainer7; running ours only.\n"
            "Create it from the repository root with:\n  " + SETUP_CHAINER7,
            file=sys.stderr,
        )
    infos = {}
    for side, (python, _, env) in list(sides.items()):
        info = probe(python, env)
        info["python_path"] = (
            os.path.relpath(python, ROOT) if python.startswith(ROOT) else python
        )
        if "error" in info:
            print("skipping %s: %s" % (side, info["error"]), file=sys.stderr)
            del sides[side]
            continue
        infos[side] = info
    if infos.get("ours", {}).get("chainer") == "7.8.1":
        sys.exit("run.py must run under this project's interpreter, not Chainer 7's")
    ours_info = infos.get("ours", {})
    if ours_info.get("gemm") == "mkl" or ours_info.get("conv") in ("onednn", "race"):
        # chainer-cpu's optional engines are in use: also measure without.
        sides = {
            "ours": sides["ours"],
            "ours-plain": (sys.executable, "chainer", PLAIN_ENGINES),
            **{k: v for k, v in sides.items() if k != "ours"},
        }
        infos["ours-plain"] = {
            **probe(sys.executable, PLAIN_ENGINES),
            "python_path": infos["ours"]["python_path"],
        }
    labels = {side: side_label(side, infos[side]) for side in sides}
    load_before = os.getloadavg()

    records = []
    order = list(sides)
    for rnd in range(args.rounds):
        results = {}
        for workload in args.workloads:
            scripts, normal, quick = WORKLOADS[workload]
            seq = order if rnd % 2 == 0 else order[::-1]
            for side in seq:
                python, kind, env = sides[side]
                if kind not in scripts:
                    continue
                rec = run_workload(
                    python,
                    scripts[kind],
                    quick if args.quick else normal,
                    args.timeout,
                    env,
                )
                results[(side, workload)] = rec
        records.append(results)
        print(
            "round %d/%d done (%.0f s)" % (rnd + 1, args.rounds, time.time() - started),
            file=sys.stderr,
        )
    load_after = os.getloadavg()
    elapsed = time.time() - started

    table = build_table(records, sides, infos, labels, args.workloads)
    print(table)
    notes = (
        torch_ratios(records, sides, labels, args.workloads)
        + floor_fractions(records, sides, labels, args.workloads)
        + check_agreement(records, sides, args.workloads)
        + failures(records, labels)
    )
    for note in notes:
        print(note)
    if args.no_write:
        return 0

    command = "python " + " ".join(
        shlex.quote(a) for a in [os.path.relpath(__file__, ROOT), *sys.argv[1:]]
    )
    now = datetime.datetime.now(datetime.UTC)
    ours_info = infos["ours"]
    priority = "nice %s" % ours_info.get("nice")
    if "autogroup" in ours_info:
        priority += " (%s)" % ours_info["autogroup"].split("/")[-1]
    report = [
        "- Date: %s" % now.strftime("%Y-%m-%d %H:%M UTC"),
        "- Command: `%s` (from the repository root)" % command,
        "- Machine: %s, %s, %d CPUs; load average %.2f before, %.2f after"
        % (
            platform.platform(),
            platform.processor() or platform.machine(),
            os.cpu_count() or 0,
            load_before[0],
            load_after[0],
        ),
        "- Method: %d interleaved round(s) (side order reversed every other round); "
        "each cell is the median over rounds of each run's median, with the range "
        "over rounds; ratios are per round, then summarised the same way. "
        "Threads pinned to %s (OMP/OPENBLAS/MKL, torch.set_num_threads); "
        "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset; each run in its own "
        "session at priority %s. Took %.0f s."
        % (args.rounds, THREADS, priority, elapsed),
        "- Ratio column: Chainer 7.8.1 time ÷ ours (above 1 means ours is faster)."
        if "chainer7" in sides
        else "- Chainer 7.8.1 anchor missing (create it with `%s`)." % SETUP_CHAINER7,
        *generic_kernel_notes(infos, labels),
        "",
        "### Results",
        "",
        table,
        "",
        "### Interpreters and BLAS",
        "",
        *blas_lines(infos, labels),
    ]
    if notes:
        report += ["", "### Checks and failures", "", *notes]
    try:
        with open(args.output, encoding="utf-8") as f:
            old_text = f.read()
    except FileNotFoundError:
        old_text = ""
    kind = machine_kind(ours_info)
    write_atomic(args.output, merge_report(old_text, kind, report) + "\n")
    print("wrote %s" % os.path.relpath(args.output, ROOT), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
