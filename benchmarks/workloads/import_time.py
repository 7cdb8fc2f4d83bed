"""Time of ``import chainer`` in a fresh interpreter (median of several).

Each sample starts a new subprocess of the current interpreter, so no module
is cached; the figure excludes interpreter start-up by timing inside the
child. ``import numpy`` alone is measured the same way as the floor.

Prints one JSON line.
"""

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing

_CHILD = (
    "import time\n"
    "t0 = time.perf_counter()\n"
    "import {module}\n"
    "print(time.perf_counter() - t0)\n"
)


def time_import(module, repeats):
    """Seconds to import ``module`` in ``repeats`` fresh interpreters."""
    samples = []
    code = _CHILD.format(module=module)
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", code],
            check=True,
            capture_output=True,
            text=True,
        )
        samples.append(float(out.stdout.strip().splitlines()[-1]))
    return samples


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    if args.repeats <= 0:
        parser.error("--repeats must be positive")
    # The first child warms the OS file cache for both measurements.
    time_import("chainer", 1)
    results = {
        "import_chainer_s": _timing.summary(time_import("chainer", args.repeats)),
        "import_numpy_s": _timing.summary(time_import("numpy", args.repeats)),
    }
    _timing.emit("import_time", results)


if __name__ == "__main__":
    main()
