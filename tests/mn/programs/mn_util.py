"""Helpers of the per-rank test programs: named checks reported as JSON.

Each program runs its checks on every rank and prints one line
``MNRESULT {json}`` per rank, which tests/mn reads back.
"""

import json
import os
import sys
import traceback

# Each rank does its own small share of work; one BLAS thread keeps two or
# three ranks from oversubscribing the CI machine's cores.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class Checks:
    """Collects named checks; :meth:`emit` prints them as one JSON line."""

    def __init__(self, rank, size):
        self.rank = rank
        self.size = size
        self.passed = []
        self.failed = {}
        self.values = {}

    def run(self, name, fn, *args):
        """Runs ``fn(*args)``; an exception (an assert) marks ``name`` failed."""
        try:
            fn(*args)
        except Exception:
            self.failed[name] = traceback.format_exc()
        else:
            self.passed.append(name)

    def emit(self):
        record = {
            "rank": self.rank,
            "size": self.size,
            "passed": self.passed,
            "failed": self.failed,
            "values": self.values,
        }
        sys.stdout.write("MNRESULT " + json.dumps(record) + "\n")
        sys.stdout.flush()
