"""The BLAS thread count follows the CPUs other processes leave free (issue 22).

``chainer_cpu._parallel._Governor`` measures, per window, the busy time of
the usable CPUs (``/proc/stat``) minus this process's CPU time, and sets
OpenBLAS's thread count (which also sizes the CPU team) to the free CPUs.
Here the clock, ``/proc/stat`` and the BLAS are stand-ins, so the decisions
are checked on any machine; one test runs the real thing against busy
processes.
"""

import os
import subprocess
import sys
import threading
import time

import pytest

from chainer_cpu import _blas
from chainer_cpu import _parallel


class Machine:
    """A clock, /proc/stat's busy seconds and this process's CPU seconds."""

    def __init__(self, monkeypatch, load=0.0):
        self.now = 100.0
        self.busy = 0.0
        self.ours = 0.0
        self.load = load
        monkeypatch.setattr(_parallel.time, "monotonic", lambda: self.now)
        monkeypatch.setattr(_parallel.time, "process_time", lambda: self.ours)
        monkeypatch.setattr(_parallel, "_busy_seconds", lambda cpus: self.busy)
        monkeypatch.setattr(_parallel, "others_running", lambda: self.load)

    def run(self, seconds, ours, others):
        """``seconds`` pass; we use ``ours`` CPUs, other processes ``others``."""
        self.now += seconds
        self.ours += ours * seconds
        self.busy += (ours + others) * seconds


@pytest.fixture
def governor(monkeypatch, fake_blas):
    """A governor over a 2-thread FakeBLAS on 2 CPUs; returns (gov, machine)."""
    machine = Machine(monkeypatch)
    blas = fake_blas(2)
    team = _parallel._Team(blas)
    monkeypatch.setitem(_parallel._state, "team", team)
    gov = _parallel._Governor(blas, team, limit=2, cpus=[0, 1], capacity=2.0)
    monkeypatch.setitem(_parallel._state, "governor", gov)
    monkeypatch.setitem(_parallel._state, "configured", True)
    gov.start()
    return gov, machine


@pytest.mark.parametrize(
    ("free", "limit", "expected"),
    [(2.0, 2, 2), (1.8, 2, 2), (1.7, 2, 1), (0.0, 2, 1), (-1.0, 4, 1), (7.7, 4, 4)],
)
def test_threads_for_counts_mostly_free_cpus_within_one_and_the_limit(
    free, limit, expected
):
    assert _parallel.threads_for(free, limit) == expected


def test_a_busy_neighbour_takes_the_blas_to_one_thread_and_back(governor):
    gov, machine = governor
    blas = gov.blas
    assert blas.threads == 2  # nothing else running at the start
    # One other process keeps a CPU busy while we use ours.
    machine.run(0.6, ours=1.5, others=0.6)
    _parallel.engage()
    assert blas.threads == 1
    assert _parallel.width() == 1
    machine.run(0.6, ours=1.0, others=1.0)
    _parallel.engage()
    assert blas.threads == 1
    # The neighbour is gone: both CPUs are free again, which takes two
    # windows in a row to believe.
    machine.run(0.6, ours=1.0, others=0.05)
    _parallel.engage()
    assert blas.threads == 1
    machine.run(0.6, ours=1.0, others=0.05)
    _parallel.engage()
    assert blas.threads == 2
    assert _parallel.width() == 2


def test_one_free_window_between_busy_ones_adds_no_thread(governor):
    gov, machine = governor
    for others in (1.0, 0.0, 1.0, 0.0, 1.0):
        machine.run(0.6, ours=1.0, others=others)
        _parallel.engage()
        assert gov.blas.threads == 1
    assert gov.blas.set_counts == [1]


def test_no_look_before_the_window_ends(governor):
    gov, machine = governor
    machine.run(_parallel.SAMPLE_SECONDS / 2, ours=1.0, others=1.0)
    _parallel.engage()
    assert gov.blas.threads == 2
    machine.run(_parallel.SAMPLE_SECONDS / 2, ours=1.0, others=1.0)
    _parallel.engage()
    assert gov.blas.threads == 1


@pytest.mark.parametrize(("running", "expected"), [(1, 1), (0, 2), (None, 2)])
def test_the_threads_running_at_the_start_size_it(
    monkeypatch, fake_blas, running, expected
):
    Machine(monkeypatch, load=running)
    blas = fake_blas(2)
    gov = _parallel._Governor(blas, _parallel._Team(blas), 2, [0, 1], 2.0)
    monkeypatch.setitem(_parallel._state, "governor", gov)
    gov.start()
    assert blas.threads == expected


@pytest.mark.parametrize(
    ("fields", "own", "expected"),
    [("0.90 0.80 0.70 1/75 2890", 1, 0), ("3.1 2.0 1.0 4/75 2890", 1, 3),
     ("0.0 0.0 0.0 2/70 1", 3, 0), ("garbage", 1, None)],
)  # fmt: skip
def test_others_running_counts_runnable_threads_not_ours(
    monkeypatch, tmp_path, fields, own, expected
):
    # The 1-minute load average (first field) is history: only the threads
    # runnable now count, less this process's own.
    path = tmp_path / "loadavg"
    path.write_text(fields + "\n")
    monkeypatch.setattr(_parallel, "_own_running", lambda: own)
    assert _parallel.others_running(reads=2, path=str(path)) == expected


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs /proc")
def test_own_running_counts_this_thread():
    assert _parallel._own_running() >= 1


def test_a_count_set_by_the_user_ends_the_governing(governor):
    gov, machine = governor
    gov.blas.threads = 2
    machine.run(0.6, ours=1.0, others=0.0)
    _parallel.engage()
    gov.blas.threads = 1  # threadpoolctl, say
    machine.run(0.6, ours=1.0, others=0.0)
    _parallel.engage()
    assert _parallel._state["governor"] is None
    assert gov.blas.threads == 1


def test_no_change_while_a_team_run_holds_the_blas(governor):
    gov, machine = governor
    machine.run(0.6, ours=1.0, others=1.0)
    with gov.team.lock:  # a run on another thread: the BLAS at 1 for now
        gov.blas.threads = 1
        gov.sample()
        gov.blas.threads = 2
    assert gov.blas.set_counts == []
    assert _parallel._state["governor"] is gov


def test_without_proc_stat_the_start_count_stays(governor, monkeypatch):
    gov, machine = governor
    monkeypatch.setattr(_parallel, "_busy_seconds", lambda cpus: None)
    machine.run(0.6, ours=1.0, others=1.0)
    _parallel.engage()
    assert _parallel._state["governor"] is None
    assert gov.blas.threads == 2


def test_busy_seconds_reads_the_given_cpus_of_proc_stat(tmp_path):
    stat = tmp_path / "stat"
    stat.write_text(
        "cpu  900 0 90 900 10 0 0 0 0 0\n"
        "cpu0 100 5 20 300 7 1 2 3 0 0\n"
        "cpu1 800 0 70 600 3 0 0 0 0 0\n"
        "intr 1 2 3\n"
    )
    ticks = _parallel._CLOCK_TICKS
    # user nice system irq softirq steal; not idle or iowait.
    assert _parallel._busy_seconds([0], str(stat)) == pytest.approx(131 / ticks)
    assert _parallel._busy_seconds([0, 1], str(stat)) == pytest.approx(1001 / ticks)
    assert _parallel._busy_seconds([5], str(stat)) is None
    assert _parallel._busy_seconds([0], str(tmp_path / "missing")) is None


def test_quota_files_of_both_cgroup_versions(tmp_path):
    v2 = tmp_path / "cpu.max"
    v2.write_text("150000 100000\n")
    assert _parallel._read_quota_v2(str(v2)) == 1.5
    v2.write_text("max 100000\n")
    assert _parallel._read_quota_v2(str(v2)) is None
    (tmp_path / "cpu.cfs_quota_us").write_text("200000\n")
    (tmp_path / "cpu.cfs_period_us").write_text("100000\n")
    assert _parallel._read_quota_v1(str(tmp_path)) == 2.0
    (tmp_path / "cpu.cfs_quota_us").write_text("-1\n")
    assert _parallel._read_quota_v1(str(tmp_path)) is None


def test_usable_cpus_take_the_smaller_of_affinity_and_quota(monkeypatch):
    monkeypatch.setattr(_parallel.os, "sched_getaffinity", lambda pid: {3, 1, 2})
    monkeypatch.setattr(_parallel, "_cgroup_quota", lambda: None)
    assert _parallel.usable_cpus() == ([1, 2, 3], 3.0)
    monkeypatch.setattr(_parallel, "_cgroup_quota", lambda: 1.5)
    assert _parallel.usable_cpus() == ([1, 2, 3], 1.5)
    monkeypatch.setattr(_parallel, "_cgroup_quota", lambda: 0.2)
    assert _parallel.usable_cpus() == ([1, 2, 3], 1.0)


def test_a_bad_mode_names_the_variable(monkeypatch):
    monkeypatch.setenv("CHAINER_CPU_PARALLEL", "maybe")
    with pytest.raises(ValueError, match="CHAINER_CPU_PARALLEL.*'maybe'"):
        _parallel.mode()
    monkeypatch.setenv("CHAINER_CPU_PARALLEL", " Static ")
    assert _parallel.mode() == "static"


# The real governor on NumPy's OpenBLAS, against one busy process per CPU.
_LOADED_PROBE = """
import json, time
from chainer_cpu import _blas, _parallel
blas = _blas.openblas_threads()
_parallel.engage()
start = blas.num_threads()
deadline = time.monotonic() + 10
while time.monotonic() < deadline and blas.num_threads() > 1:
    time.sleep(0.1)
    _parallel.engage()
print(json.dumps({"limit": _parallel._state["governor"].limit,
                  "end": blas.num_threads()}))
"""


@pytest.mark.skipif(
    _blas.openblas_threads() is None or not os.path.exists("/proc/stat"),
    reason="needs NumPy's OpenBLAS thread controls and /proc/stat",
)
def test_busy_processes_take_the_real_blas_to_one_thread():
    cpus, _ = _parallel.usable_cpus()
    if len(cpus) < 2:
        pytest.skip("one CPU: the BLAS has one thread anyway")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in cpus]
    try:
        time.sleep(0.3)
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "GOTO_NUM_THREADS")
            and not k.startswith("CHAINER_CPU")
        }
        proc = subprocess.run(
            [sys.executable, "-c", _LOADED_PROBE],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        for p in busy:
            p.kill()
        for p in busy:
            p.wait()
    assert proc.returncode == 0, proc.stderr
    assert '"end": 1' in proc.stdout


def test_threads_named_for_the_team_only_start_with_a_run(governor):
    # The governor itself starts no thread: it samples on the caller's.
    before = threading.active_count()
    _, machine = governor
    machine.run(0.6, ours=1.0, others=0.0)
    _parallel.engage()
    assert threading.active_count() == before
