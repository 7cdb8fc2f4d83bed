"""Deterministic per-call cost: CPU instructions counted with valgrind.

Wall-clock timings on a shared 2-core machine swing by 10-40 %; instruction
counts from ``valgrind --tool=callgrind`` repeat exactly for the same binary
and inputs. For each workload of ``workloads/op_calls.py`` this runs the
script with ``N`` and with 0 calls under callgrind, on this project and on
Chainer 7.8.1 (``.bench/chainer7``), and reports instructions per call and
the ratio. Compare like with like: the default interpreter for this project
is ``.bench/ours`` (NumPy 1.26.4, like the Chainer venv) when it exists.

Run: ``python benchmarks/instructions.py [--calls 1000] [--workloads ops,relu]``
(needs valgrind: ``apt-get install valgrind``). Takes about a minute per
workload and side.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCRIPT = os.path.join(HERE, "workloads", "op_calls.py")
WORKLOADS = ("ops", "relu", "sum", "softmax_cross_entropy")


def _count(python, workload, calls):
    env = dict(os.environ)
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    # Hash randomisation moves dict and set costs by about 1 % between runs.
    env.setdefault("PYTHONHASHSEED", "0")
    # Compiled bytecode keeps parsing out of the counts.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([python, SCRIPT, workload, "1"], env=env, check=True)
    proc = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            python,
            SCRIPT,
            workload,
            str(calls),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    match = re.search(r"Collected : (\d+)", proc.stderr)
    if match is None:
        raise RuntimeError(f"no instruction count in valgrind output:\n{proc.stderr}")
    return int(match.group(1))


def per_call(python, workload, calls):
    return (_count(python, workload, calls) - _count(python, workload, 0)) / calls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--ours", default=None, help="interpreter of this project")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (apt-get install valgrind)")
    ours = args.ours or os.path.join(ROOT, ".bench", "ours", "bin", "python")
    if not os.path.exists(ours):
        ours = sys.executable
    anchor = os.path.join(ROOT, ".bench", "chainer7", "bin", "python")
    print(f"ours: {ours}\nChainer 7.8.1: {anchor}\n")
    print("| workload | ours, instructions/call | Chainer 7.8.1 | ours / Chainer |")
    print("|---|---|---|---|")
    for workload in args.workloads.split(","):
        mine = per_call(ours, workload, args.calls)
        if os.path.exists(anchor):
            theirs = per_call(anchor, workload, args.calls)
            ratio = f"{mine / theirs:.3f}"
            theirs = f"{theirs:,.0f}"
        else:
            theirs = ratio = "(no .bench/chainer7)"
        print(f"| {workload} | {mine:,.0f} | {theirs} | {ratio} |")


if __name__ == "__main__":
    main()
