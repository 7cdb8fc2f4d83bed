"""The CPU team of chainer_cpu._parallel: items on threads, BLAS single-threaded."""

import os
import subprocess
import sys
import threading
import warnings

import numpy
import pytest

from chainer_cpu import _blas
from chainer_cpu import _parallel


@pytest.fixture
def team(cpu_team):
    """A team of 3 threads over a fake BLAS (any machine)."""
    return cpu_team(3)


def test_results_in_item_order_and_items_interleaved_over_threads(team):
    seen = {}
    lock = threading.Lock()
    barrier = threading.Barrier(3, timeout=10)

    def fn(i):
        if i < 3:
            barrier.wait()  # the first item of each thread runs at once
        with lock:
            seen[i] = (threading.get_ident(), team.blas.num_threads())
        return i * i

    assert _parallel.run(fn, 8) == [i * i for i in range(8)]
    assert _parallel.width() == 3
    threads = [seen[i][0] for i in range(8)]
    for i in range(8):
        assert threads[i] == threads[i % 3]
    assert len(set(threads[:3])) == 3
    assert threads[0] == threading.get_ident()
    # The BLAS ran one thread per call meanwhile, and got its count back.
    assert {blas_threads for _, blas_threads in seen.values()} == {1}
    assert team.blas.set_counts == [1, 3]


@pytest.mark.parametrize("parallel", [True, False])
def test_by_blocks_covers_the_range_with_a_scratch_row_per_thread(team, parallel):
    seen = []
    lock = threading.Lock()

    def fn(start, stop, scratch):
        assert scratch.shape == (stop - start,)
        assert scratch.dtype == "float32"
        with lock:
            seen.append((start, stop, threading.get_ident(), scratch.ctypes.data))

    _parallel.by_blocks(fn, 23, 5, "float32", parallel)
    assert sorted((start, stop) for start, stop, _, _ in seen) == [
        (0, 5),
        (5, 10),
        (10, 15),
        (15, 20),
        (20, 23),
    ]
    rows = {}
    for _, _, thread, row in seen:
        rows.setdefault(thread, set()).add(row)
    assert len(rows) == (3 if parallel else 1)
    # Each thread writes its own scratch row, never another's.
    all_rows = [row for thread_rows in rows.values() for row in thread_rows]
    assert len(all_rows) == len(set(all_rows)) == len(rows)


def test_the_team_measures_how_late_its_helpers_start(team):
    assert team.lag == 0.0
    _parallel.run(lambda i: None, 3)
    assert team.lag > 0.0
    team.lag = 1.0
    _parallel.run(lambda i: None, 3)
    assert team.lag == pytest.approx(1.0 - _parallel.LAG_WEIGHT, abs=0.01)
    # A late helper (here: any, the average being a nanosecond) counts as
    # LAG_CLIP times the average at most.
    team.lag = 1e-9
    _parallel.run(lambda i: None, 3)
    grown = 1 + _parallel.LAG_WEIGHT * (_parallel.LAG_CLIP - 1)
    assert team.lag == pytest.approx(1e-9 * grown)


@pytest.mark.parametrize("threads", [2, 3])
def test_caller_share_makes_up_for_the_helpers_lag(threads, cpu_team):
    team = cpu_team(threads)
    even = 1.0 / threads
    assert _parallel.caller_share(1.0) == even  # nothing measured yet
    team.lag = 0.01
    ahead = 0.01 * (1 + _parallel.LAG_MARGIN)
    # The caller's share (the job is 1 s on one thread) ends with the
    # helpers' equal shares, which start `ahead` late.
    share = _parallel.caller_share(1.0)
    helper = (1.0 - share) / (threads - 1)
    assert share == pytest.approx(ahead + helper)
    assert _parallel.caller_share(0.0) == even
    assert _parallel.caller_share(0.001) == 1.0  # shorter than the lag
    cpu_team(1)
    assert _parallel.caller_share(1.0) == 1.0


def _job_times(monkeypatch, seconds):
    # by_blocks' clock: each timed job takes seconds[(parallel, block)].
    now = [0.0]
    real = _parallel._blocks

    def blocks(fn, count, block, dtype, parallel):
        real(fn, count, block, dtype, parallel)
        now[0] += seconds.get((parallel, block), 0.0)

    monkeypatch.setattr(_parallel, "_blocks", blocks)
    monkeypatch.setattr(_parallel, "_clock", lambda: now[0])
    monkeypatch.setattr(_parallel, "_ways", {})


@pytest.mark.parametrize(
    "fastest", [(True, 10), (True, 50), (False, 10)], ids=["team", "coarse", "one"]
)
def test_by_blocks_keeps_the_fastest_way(fastest, team, monkeypatch):
    seconds = {(True, 10): 2.0, (True, 50): 2.0, (False, 10): 2.0, fastest: 1.0}
    _job_times(monkeypatch, seconds)
    threads_seen = []

    def fn(start, stop, scratch):
        threads_seen.append(threading.get_ident())
        covered.extend(range(start, stop))

    trials = 1 + 3 * _parallel.TRIALS
    for call in range(trials + 3):
        covered = []
        threads_seen.clear()
        _parallel.by_blocks(fn, 300, 10, "float32")
        assert sorted(covered) == list(range(300))
        ways = _parallel._ways[(fn.__code__, 300, 10, numpy.dtype("float32"), 3)]
        if call < trials:
            assert ways.chosen is None
    assert ways.chosen == fastest
    assert ways.options == [(True, 10), (True, 50), (False, 10)]
    assert len(set(threads_seen)) == (3 if fastest[0] else 1)


def test_by_blocks_times_the_ways_again_after_a_while(team, monkeypatch):
    seconds = {(True, 10): 1.0, (True, 50): 2.0, (False, 10): 2.0}
    _job_times(monkeypatch, seconds)
    monkeypatch.setattr(_parallel, "RETRY_CALLS", 4)

    def fn(start, stop, scratch):
        pass

    for _ in range(1 + 3 * _parallel.TRIALS + 1 + 4):
        _parallel.by_blocks(fn, 300, 10, "float32")
    ways = _parallel._ways[(fn.__code__, 300, 10, numpy.dtype("float32"), 3)]
    assert ways.chosen == (True, 10)
    seconds[(False, 10)] = 0.5  # the team's way slowed down meanwhile
    _parallel.by_blocks(fn, 300, 10, "float32")
    assert ways.chosen is None
    for _ in range(3 * _parallel.TRIALS):
        _parallel.by_blocks(fn, 300, 10, "float32")
    assert ways.chosen == (False, 10)


def test_by_blocks_times_nothing_where_it_has_one_way(team, monkeypatch):
    _job_times(monkeypatch, {})
    _parallel.by_blocks(lambda start, stop, scratch: None, 8, 10, "float32")
    monkeypatch.setattr(_parallel, "CHOOSE_BLOCKS", False)
    _parallel.by_blocks(lambda start, stop, scratch: None, 300, 10, "float32")
    assert _parallel._ways == {}


def test_first_error_is_raised_after_every_thread_stopped(team):
    finished = []

    def fn(i):
        if i == 4:
            raise ValueError("item 4")
        if i == 1:
            raise KeyError("item 1")
        finished.append(i)

    with pytest.raises(KeyError, match="item 1"):
        _parallel.run(fn, 9)
    # Items after a failed one on the same thread are skipped; the other
    # threads ran theirs to the end before run() returned.
    assert sorted(finished) == [0, 2, 3, 5, 6, 8]
    assert team.blas.threads == 3
    assert _parallel.run(lambda i: i, 4) == [0, 1, 2, 3]  # the team still works


def test_a_run_inside_a_run_is_serial(team):
    inner_threads = []

    def inner(i):
        inner_threads.append(threading.get_ident())
        return i

    def outer(i):
        return _parallel.run(inner, 3)

    assert _parallel.run(outer, 3) == [[0, 1, 2]] * 3
    # Each inner run stayed on the thread of its outer item.
    assert len(inner_threads) == 9
    assert len(set(inner_threads)) == 3


def test_another_threads_run_while_one_runs_is_serial(team):
    # While one thread holds the team, a run from a second thread takes
    # its items on that thread, in order.
    started = threading.Event()
    release = threading.Event()
    out = {}

    def slow(i):
        if i == 0:
            started.set()
            release.wait(10)
        return i

    def hold():
        out["a"] = _parallel.run(slow, 3)

    holder = threading.Thread(target=hold)
    holder.start()
    assert started.wait(10)
    me = threading.get_ident()
    assert _parallel.run(lambda i: (i, threading.get_ident()), 2) == [(0, me), (1, me)]
    release.set()
    holder.join(10)
    assert out["a"] == [0, 1, 2]


def test_no_team_or_one_blas_thread_runs_inline(cpu_team):
    me = threading.get_ident()
    cpu_team(1)
    assert _parallel.width() == 1
    assert _parallel.run(lambda i: (i, threading.get_ident()), 2) == [(0, me), (1, me)]
    one = cpu_team(2)
    one.blas.threads = 1  # e.g. threadpoolctl limited the BLAS
    assert _parallel.width() == 1
    assert _parallel.run(lambda i: (i, threading.get_ident()), 2) == [(0, me), (1, me)]
    assert one.blas.set_counts == []


def test_zero_items(team):
    assert _parallel.run(lambda i: i, 0) == []


_PROBE = """
import os
import chainer
from chainer_cpu import _blas, _parallel
blas = _blas.openblas_threads()
print(_parallel._state["team"] is not None, None if blas is None else blas.idle_spin())
"""


def _probe(**env_changes):
    env = dict(os.environ)
    for key in ("CHAINER_CPU_PARALLEL", "OPENBLAS_THREAD_TIMEOUT"):
        env.pop(key, None)
    env.update(env_changes)
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    has_team, spin = proc.stdout.split()
    return has_team == "True", spin


needs_openblas = pytest.mark.skipif(
    _blas.openblas_threads() is None,
    reason="NumPy's BLAS is not an OpenBLAS with thread controls",
)


@needs_openblas
@pytest.mark.parametrize("value", ["0", "off"])
def test_off_leaves_openblas_alone(value):
    assert _probe(CHAINER_CPU_PARALLEL=value) == (False, "0")


@needs_openblas
def test_set_num_threads_round_trip():
    blas = _blas.openblas_threads()
    before = blas.num_threads()
    try:
        blas.set_num_threads(1)
        assert blas.num_threads() == 1
    finally:
        blas.set_num_threads(before)
    assert blas.num_threads() == before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_gets_a_fresh_team(team):
    assert _parallel.run(lambda i: i, 3) == [0, 1, 2]  # helpers started
    read, write = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns about forking a process with threads.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover (child)
        try:
            result = _parallel.run(lambda i: i + 1, 3)
            fresh = _parallel._state["team"] is not team
            os.write(write, repr((result, fresh)).encode())
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read) as f:
        assert f.read() == repr(([1, 2, 3], True))
    assert status == 0


def test_a_helper_finishes_an_interrupted_task_before_the_next(team):
    # If the calling thread stops waiting (Ctrl-C during run()), a helper
    # may still run its items; the next run waits for them instead of
    # handing the helper a second task.
    release = threading.Event()
    ran = []
    assert _parallel.run(lambda i: i, 3) == [0, 1, 2]  # helpers exist now
    helper = team.helpers[0]

    def slow(arg):
        release.wait(10)
        ran.append(("old", arg))

    helper.start(slow, 7)  # as if left behind by an interrupted run
    timer = threading.Timer(0.2, release.set)
    timer.start()
    assert _parallel.run(lambda i: (ran.append(("new", i)), i)[1], 3) == [0, 1, 2]
    timer.join()
    assert ran[0] == ("old", 7)
    assert sorted(ran[1:]) == [("new", 0), ("new", 1), ("new", 2)]
