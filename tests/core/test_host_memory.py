"""Host memory retention (chainer._host_memory): freed heap is reused, not refaulted."""

import ctypes
import os
import subprocess
import sys

import pytest

import chainer
from chainer import backend


def _is_glibc():
    try:
        ctypes.CDLL(None).gnu_get_libc_version  # noqa: B018
    except (OSError, AttributeError):
        return False
    return True


glibc_only = pytest.mark.skipif(not _is_glibc(), reason="needs glibc")

# Allocates ten 4 MiB arrays at once, frees them, three rounds; prints the
# minor page faults of the last round. With glibc's adaptive defaults the
# 40 MiB freed at the top of the heap exceed its trim threshold and go back to
# the system, so every round faults again.
_PROGRAM = """
import resource
import numpy
import chainer
from chainer.utils import _parallel
_parallel.engage()  # the retention is applied at first use
def round_():
    arrays = [numpy.ones(1 << 20, numpy.float32) for _ in range(10)]
    del arrays
for _ in range(2):
    round_()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
round_()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(chainer.backend.get_host_memory_retention())
"""


def _python(code, env_value):
    # Runs code in a fresh interpreter with the variable set to env_value
    # (unset for None).
    env = dict(os.environ)
    env.pop("CHAINER_HOST_MEMORY_RETENTION", None)
    if env_value is not None:
        env["CHAINER_HOST_MEMORY_RETENTION"] = env_value
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _run(env_value):
    proc = _python(_PROGRAM, env_value)
    assert proc.returncode == 0, proc.stderr
    faults, retention = proc.stdout.split()
    return int(faults), retention


@glibc_only
def test_default_retention_reuses_freed_memory():
    faults, retention = _run(None)
    assert retention == str(chainer._host_memory.DEFAULT_RETENTION)
    assert faults < 1000  # 40 MiB of fresh pages would be about 10240 faults


@glibc_only
def test_off_leaves_glibc_defaults():
    faults, retention = _run("off")
    assert retention == "None"
    assert faults > 5000


@glibc_only
def test_zero_returns_memory_eagerly():
    faults, retention = _run("0")
    assert retention == "0"
    assert faults > 5000


@glibc_only
def test_explicit_bytes():
    faults, retention = _run(str(64 << 20))
    assert retention == str(64 << 20)
    assert faults < 1000


def test_bad_environment_value_is_named():
    proc = _python("import chainer", "lots")
    assert proc.returncode != 0
    assert "CHAINER_HOST_MEMORY_RETENTION must be a number of bytes" in proc.stderr


@pytest.mark.parametrize("value", [1.5, "1", None, True])
def test_set_rejects_non_int(value):
    with pytest.raises(TypeError, match="must be an int"):
        backend.set_host_memory_retention(value)


@pytest.mark.parametrize("value", [-1, 1 << 31])
def test_set_rejects_out_of_range(value):
    with pytest.raises(ValueError, match=r"in \[0, 2\*\*31\)"):
        backend.set_host_memory_retention(value)


@glibc_only
def test_set_and_get_round_trip():
    before = backend.get_host_memory_retention()
    try:
        assert backend.set_host_memory_retention(128 << 20) is True
        assert backend.get_host_memory_retention() == 128 << 20
    finally:
        if before is not None:
            backend.set_host_memory_retention(before)


def test_other_c_libraries_are_left_alone(monkeypatch):
    from chainer import _host_memory

    before = backend.get_host_memory_retention()
    monkeypatch.setattr(_host_memory, "_mallopt", lambda: None)
    assert backend.set_host_memory_retention(1 << 20) is False
    assert backend.get_host_memory_retention() == before
