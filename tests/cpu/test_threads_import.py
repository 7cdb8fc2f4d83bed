"""``import chainer`` leaves process-wide CPU state alone; the first use sets it up.

Issue 22: importing Chainer used to shorten OpenBLAS's idle spin (restarting
its threads) and call glibc's ``mallopt``. Now the thread team, the BLAS
settings and the host memory retention wait for the first NumPy
convolution (``chainer_cpu._parallel.engage``). Each check runs in a fresh
interpreter, because the state in question belongs to the whole process.
"""

import ctypes
import json
import os
import subprocess
import sys

import pytest

from chainer import _host_memory
from chainer_cpu import _blas
from chainer_cpu import _parallel

_VARS = (
    "CHAINER_CPU_PARALLEL",
    "CHAINER_HOST_MEMORY_RETENTION",
    "OPENBLAS_THREAD_TIMEOUT",
    "OPENBLAS_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "OMP_NUM_THREADS",
)


def _user_env():
    # A user's process: the installed plugins load (chainer-cpu among them).
    return {
        k: v
        for k, v in os.environ.items()
        if k not in _VARS and k != "CHAINER_DISABLE_PLUGIN_AUTOLOAD"
    }


def _python(code, **env_changes):
    env = _user_env()
    env.update(env_changes)
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _json(code, **env_changes):
    proc = _python(code, **env_changes)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _is_glibc():
    try:
        ctypes.CDLL(None).gnu_get_libc_version  # noqa: B018
    except (OSError, AttributeError):
        return False
    return True


needs_openblas = pytest.mark.skipif(
    _blas.openblas_threads() is None,
    reason="NumPy's BLAS is not an OpenBLAS with thread controls",
)
glibc_only = pytest.mark.skipif(not _is_glibc(), reason="needs glibc")

# OpenBLAS's thread count and idle-spin setting, and the process's threads,
# before and after importing Chainer and its function catalogue.
_IMPORT_PROBE = """
import json, threading
import numpy
from chainer_cpu import _blas  # numpy only: finds NumPy's OpenBLAS
blas = _blas.openblas_threads()
def state():
    return [blas.num_threads(), blas.idle_spin(), threading.active_count()]
before = state()
import chainer
try:
    import chainer.functions  # the catalogue too, where installed
except ModuleNotFoundError:
    pass
from chainer_cpu import _parallel
after = state()
print(json.dumps({
    "before": before, "after": after,
    "configured": _parallel._state["configured"],
    "team": _parallel._state["team"] is not None,
    "retention": chainer.backend.get_host_memory_retention(),
}))
"""


@needs_openblas
def test_import_leaves_openblas_and_the_process_threads_alone():
    out = _json(_IMPORT_PROBE)
    assert out["after"] == out["before"]
    assert out["before"][1] == 0  # OpenBLAS's built-in spin, no env set
    assert out["configured"] is False
    assert out["team"] is False
    assert out["retention"] is None


# Freed 4 MiB blocks: with glibc's defaults they go back to the system and
# the next round faults them in again; with Chainer's retention they are
# reused (see tests/core/test_host_memory.py). ``USE`` decides whether a
# NumPy convolution (the first use) runs after the import.
_MALLOC_PROBE = """
import json, resource, sys
import numpy
import chainer
try:
    import chainer.functions  # the catalogue too, where installed
except ModuleNotFoundError:
    pass
if sys.argv[1] == "use":
    chainer.plugins.ensure_loaded()  # as building a link does
    x, W = numpy.ones((2, 3, 8, 8), "f"), numpy.ones((4, 3, 3, 3), "f")
    chainer.functions.convolution_2d(x, W)
def round_():
    arrays = [numpy.ones(1 << 20, numpy.float32) for _ in range(10)]
    del arrays
for _ in range(2):
    round_()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
round_()
print(json.dumps({
    "faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before,
    "retention": chainer.backend.get_host_memory_retention(),
}))
"""


def _malloc_probe(use):
    env = _user_env()
    proc = subprocess.run(
        [sys.executable, "-c", _MALLOC_PROBE, "use" if use else "import"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@glibc_only
def test_import_leaves_malloc_alone():
    out = _malloc_probe(use=False)
    assert out["retention"] is None
    assert out["faults"] > 5000  # 40 MiB of fresh pages: about 10240 faults


@glibc_only
def test_first_convolution_applies_the_retention():
    out = _malloc_probe(use=True)
    assert out["retention"] == _host_memory.DEFAULT_RETENTION
    assert out["faults"] < 1000


_FIRST_USE_PROBE = """
import json
import numpy
import chainer
import chainer.functions as F
from chainer_cpu import _blas, _parallel
blas = _blas.openblas_threads()
count = blas.num_threads()
chainer.plugins.ensure_loaded()  # as building a link does
x, W = numpy.ones((2, 3, 8, 8), "f"), numpy.ones((4, 3, 3, 3), "f")
F.convolution_2d(x, W)
print(json.dumps({
    "count_before": count,
    "count_after": blas.num_threads(),
    "spin": blas.idle_spin(),
    "team": _parallel._state["team"] is not None,
    "governor": _parallel._state["governor"] is not None,
}))
"""


@needs_openblas
def test_first_convolution_sets_up_the_team_and_the_short_spin():
    out = _json(_FIRST_USE_PROBE)
    assert out["team"] is True
    assert out["governor"] is True
    assert out["spin"] == _parallel.IDLE_SPIN
    assert 1 <= out["count_after"] <= out["count_before"]


@needs_openblas
def test_a_users_thread_timeout_is_kept_at_first_use():
    out = _json(_FIRST_USE_PROBE, OPENBLAS_THREAD_TIMEOUT="25")
    assert out["spin"] == 25


@needs_openblas
@pytest.mark.parametrize("value", ["0", "off"])
def test_off_leaves_openblas_alone_at_first_use(value):
    out = _json(_FIRST_USE_PROBE, CHAINER_CPU_PARALLEL=value)
    assert out == {
        "count_before": out["count_before"],
        "count_after": out["count_before"],
        "spin": 0,
        "team": False,
        "governor": False,
    }


@needs_openblas
def test_static_keeps_the_count_and_does_not_follow_the_load():
    out = _json(_FIRST_USE_PROBE, CHAINER_CPU_PARALLEL="static")
    assert out["team"] is True
    assert out["governor"] is False
    assert out["count_after"] == out["count_before"]


@needs_openblas
@pytest.mark.parametrize("var", ["OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"])
def test_a_users_thread_count_is_never_changed(var):
    out = _json(_FIRST_USE_PROBE, **{var: "2"})
    assert out["governor"] is False
    assert out["count_after"] == out["count_before"] == 2


def test_a_bad_retention_fails_at_import_naming_the_variable():
    proc = _python("import chainer", CHAINER_HOST_MEMORY_RETENTION="lots")
    assert proc.returncode != 0
    assert "ValueError" in proc.stderr
    assert "CHAINER_HOST_MEMORY_RETENTION" in proc.stderr
    assert repr("lots") in proc.stderr


def test_a_bad_parallel_mode_fails_at_first_use_naming_the_variable():
    # CHAINER_CPU_PARALLEL belongs to chainer-cpu, which import chainer does
    # not import: its first fast path reads it.
    code = (
        "import numpy, chainer, chainer.functions as F\n"
        "chainer.plugins.ensure_loaded()\n"
        "F.convolution_2d(numpy.ones((1, 1, 3, 3), 'f'), numpy.ones((1, 1, 2, 2), 'f'))"
    )
    assert _python("import chainer", CHAINER_CPU_PARALLEL="sometimes").returncode == 0
    proc = _python(code, CHAINER_CPU_PARALLEL="sometimes")
    assert proc.returncode != 0
    assert "ValueError" in proc.stderr
    assert "CHAINER_CPU_PARALLEL" in proc.stderr
