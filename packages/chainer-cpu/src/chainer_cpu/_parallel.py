"""Fork-join work on the CPU's cores for NumPy kernels, sized to the free CPUs.

NumPy runs its elementwise work on one thread and its BLAS on OpenBLAS's
threads, which split every product between the cores. In a convolution
built from patch copies and GEMMs that means one core copies a chunk and
both multiply it: half of each freshly written chunk crosses to the other
core, which on the 2-core machine of ``benchmarks/`` made a layer's forward
2.5x slower for seconds at a time (``benchmarks/README.md``, "What the slow
phases are"). :func:`run` instead hands whole items (a chunk's copy and its
GEMM) to a team of threads, one per BLAS thread, with the BLAS set to one
thread meanwhile, so that each item's data stays on the core that made it.

Nothing here runs at ``import chainer``: the team, the BLAS settings and the
host memory retention (:func:`chainer.backend.set_host_memory_retention`)
are set up by :func:`engage`, at the first use of a fast path of
``chainer_cpu`` or at the first NumPy training step, which reaches it through
chainer-core's CPU hook (see ``docs/threads.md``).

Threads that wait for one another are what a loaded machine punishes: when
another process holds a core, every split GEMM waits for the half whose
thread is not running, and an idle OpenBLAS worker spinning for its next
call takes CPU from both. On a 2-core machine with one busy process per core
the MNIST MLP then trained 3-5x slower than with one thread
(``benchmarks/loaded.py``). So, from the first use on, the BLAS's thread
count (which also sizes the team) follows the CPUs that other processes
leave free, measured from ``/proc/stat`` every :data:`SAMPLE_SECONDS` (see
:class:`_Governor`), never above the CPUs this process may use (affinity and
cgroup quota) or the count OpenBLAS started with. OpenBLAS's idle spin is
cut to ``2 ** IDLE_SPIN`` cycles unless ``OPENBLAS_THREAD_TIMEOUT`` is set.

``CHAINER_CPU_PARALLEL``: ``auto`` (default) as above; ``static`` keeps
OpenBLAS's thread count as it is (a team of that width, no load sampling);
``0``/``off`` leaves OpenBLAS alone and runs every item on the calling
thread. A thread count the user sets (``OPENBLAS_NUM_THREADS``,
``OMP_NUM_THREADS``, ``GOTO_NUM_THREADS``, or later through threadpoolctl)
is never changed.
"""

import _thread
import math
import os
import threading
import time

import numpy

from chainer import backend
from chainer_cpu import _blas

_ENV = "CHAINER_CPU_PARALLEL"
_MODES = {
    "": "auto",
    "auto": "auto",
    "1": "auto",
    "on": "auto",
    "static": "static",
    "0": "off",
    "off": "off",
    "false": "off",
    "no": "off",
}
# Variables by which the user fixes OpenBLAS's thread count (read by OpenBLAS
# at load, in this order of precedence).
_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
#: OpenBLAS's idle spin set up with the team: 2 ** IDLE_SPIN CPU cycles.
IDLE_SPIN = 20
#: Seconds between two looks at the machine's load (see :class:`_Governor`).
SAMPLE_SECONDS = 0.5

_RETENTION_ENV = "CHAINER_HOST_MEMORY_RETENTION"
#: Freed heap kept for reuse once the fast paths run (bytes; chainer-core's
#: default, see :func:`chainer.backend.set_host_memory_retention`).
DEFAULT_RETENTION = 256 << 20

_state: dict = {"team": None, "configured": False, "governor": None}
_clock = time.perf_counter


class _Helper:
    # A daemon thread that runs one task at a time: fn(arg). Two raw locks
    # hand tasks over (a third of the cost of threading.Event's condition
    # variables, which a team run paid twice per helper): ``_go`` is
    # released to start a task, ``_done`` is held while one is in progress.

    def __init__(self, index):
        self._go = _thread.allocate_lock()
        self._go.acquire()
        self._done = _thread.allocate_lock()
        self._task = None
        self._error = None
        self._thread = threading.Thread(
            target=self._loop, name=f"chainer-cpu-{index}", daemon=True
        )
        self._thread.start()

    def _loop(self):
        while True:
            self._go.acquire()
            fn, arg = self._task
            try:
                fn(arg)
            except BaseException as e:  # handed to the caller of run()
                self._error = e
            self._task = None
            self._done.release()

    def start(self, fn, arg):
        # A task left running by an interrupted run() finishes first.
        self._done.acquire()
        self._error = None
        self._task = (fn, arg)
        self._go.release()

    def wait(self):
        with self._done:
            error, self._error = self._error, None  # do not keep its frames alive
        return error


#: Weight of each run's look in :attr:`_Team.lag` (an exponential average).
LAG_WEIGHT = 0.125
#: ... each look counting as at most this many times the average.
LAG_CLIP = 4.0


class _Team:
    def __init__(self, blas):
        self.blas = blas
        self.lock = threading.Lock()
        self.helpers = []
        # Seconds from a run's start to the last helper's start of its part
        # (exponential average over runs; see caller_share).
        self.lag = 0.0

    def run(self, fn, count, width):
        blas = self.blas
        while len(self.helpers) < width - 1:
            self.helpers.append(_Helper(len(self.helpers) + 1))
        results = [None] * count
        begun = [0.0] * width

        def part(first):
            begun[first] = _clock()
            for i in range(first, count, width):
                results[i] = fn(i)

        threads = blas.num_threads()
        blas.set_num_threads(1)
        started = []
        start = _clock()
        try:
            for t in range(1, width):
                self.helpers[t - 1].start(part, t)
                started.append(self.helpers[t - 1])
            error = None
            try:
                part(0)
            except BaseException as e:
                error = e
            for helper in started:
                helper_error = helper.wait()
                if error is None:
                    error = helper_error
        finally:
            blas.set_num_threads(threads)
        if error is not None:
            raise error
        last = max(begun[1:])
        if last > start:
            seen = last - start
            if self.lag > 0:
                # One descheduled helper must not count like dozens of runs.
                seen = min(seen, LAG_CLIP * self.lag)
            self.lag += LAG_WEIGHT * (seen - self.lag)
        return results


def mode():
    """Reads ``CHAINER_CPU_PARALLEL``: ``"auto"``, ``"static"`` or ``"off"``.

    Raises:
        ValueError: If the variable holds anything else.
    """
    value = os.environ.get(_ENV, "").strip().lower()
    try:
        return _MODES[value]
    except KeyError:
        raise ValueError(
            f"{_ENV} must be auto, static, 1/on, or 0/off, got {value!r}"
        ) from None


def usable_cpus():
    """The CPUs this process may run on, and how many of them it may keep busy.

    Returns:
        tuple: ``(cpus, capacity)``: the sorted CPU ids of the affinity mask
        (all CPUs where it cannot be read) and the number of CPUs' worth of
        time the process may use, the smaller of ``len(cpus)`` and the
        cgroup CPU quota (``cpu.max`` of cgroup v2, ``cpu.cfs_quota_us`` of
        v1) where one is set.
    """
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = list(range(os.cpu_count() or 1))
    capacity = float(len(cpus))
    quota = _cgroup_quota()
    if quota is not None:
        capacity = min(capacity, max(1.0, quota))
    return cpus, capacity


def _cgroup_quota():
    # The CPU quota of this process's cgroup in CPUs, or None (unlimited or
    # unreadable).
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        path = path.lstrip("/")
        if controllers == "":  # cgroup v2
            quota = _read_quota_v2(os.path.join("/sys/fs/cgroup", path, "cpu.max"))
        elif "cpu" in controllers.split(","):
            quota = _read_quota_v1(os.path.join("/sys/fs/cgroup/cpu", path))
            if quota is None:
                quota = _read_quota_v1("/sys/fs/cgroup/cpu")
        else:
            continue
        if quota is not None:
            return quota
    return None


def _read_quota_v2(path):
    try:
        with open(path) as f:
            limit, period = f.read().split()[:2]
        return None if limit == "max" else int(limit) / int(period)
    except (OSError, ValueError):
        return None


def _read_quota_v1(folder):
    try:
        with open(os.path.join(folder, "cpu.cfs_quota_us")) as f:
            limit = int(f.read())
        with open(os.path.join(folder, "cpu.cfs_period_us")) as f:
            period = int(f.read())
    except (OSError, ValueError):
        return None
    return None if limit <= 0 or period <= 0 else limit / period


def _busy_seconds(cpus, path="/proc/stat"):
    # CPU seconds that the given CPUs spent not idle since boot (steal time
    # counts as busy: the CPU was not ours), or None without /proc/stat.
    wanted = {f"cpu{i}" for i in cpus}
    busy = 0
    found = 0
    try:
        with open(path) as f:
            for line in f:
                if not line.startswith("cpu"):
                    break
                fields = line.split()
                if fields[0] not in wanted:
                    continue
                # user nice system idle iowait irq softirq steal (guest time
                # is already inside user and nice).
                ticks = [int(v) for v in fields[1:9]]
                busy += sum(ticks) - ticks[3] - ticks[4]
                found += 1
    except (OSError, ValueError, IndexError):
        return None
    if not found:
        return None
    return busy / _CLOCK_TICKS


def others_running(reads=3, path="/proc/loadavg"):
    """Threads of other processes running or waiting for a CPU right now.

    The fourth field of ``/proc/loadavg`` counts the machine's runnable
    threads; this process's own (state ``R`` in ``/proc/self/task/*/stat``)
    are taken off. The fewest of ``reads`` looks a millisecond apart: a
    neighbour that computes is runnable in every one. Unlike the load
    average, it does not remember processes that have ended (a previous
    run, a test suite). None without ``/proc``.
    """
    fewest = None
    for i in range(reads):
        if i:
            time.sleep(0.001)
        try:
            with open(path) as f:
                running = int(f.read().split()[3].partition("/")[0])
        except (OSError, ValueError, IndexError):
            return None
        others = running - _own_running()
        fewest = others if fewest is None else min(fewest, others)
    return max(0, fewest)


def _own_running():
    # Threads of this process in state R (running or runnable).
    count = 0
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return 1
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/stat") as f:
                # pid (comm) state ...: comm may hold spaces and parentheses.
                state = f.read().rpartition(")")[2].split()[0]
        except (OSError, IndexError):
            continue
        count += state == "R"
    return max(1, count)


try:
    _CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
except (AttributeError, ValueError, OSError):
    _CLOCK_TICKS = 100


#: A CPU counts as free for one more thread when other processes use less
#: than this fraction of it: threads that wait for each other lose whole
#: time slices to even a partly busy neighbour.
BUSY_FRACTION = 0.25


def threads_for(free, limit):
    """BLAS threads for ``free`` idle CPUs (fractional), in ``[1, limit]``.

    Each whole free CPU counts, and a partial one if at most
    :data:`BUSY_FRACTION` of it is taken.
    """
    return max(1, min(int(limit), math.floor(free + BUSY_FRACTION)))


class _Governor:
    # Sets the BLAS's thread count to the CPUs that other processes leave
    # free. Over each window of SAMPLE_SECONDS (or more, when engage() is
    # called less often) it takes the busy time of the usable CPUs from
    # /proc/stat, subtracts this process's CPU time (all its threads), and
    # counts the rest as taken by others: free = capacity - others. The
    # count drops as soon as one window finds fewer free CPUs, and rises
    # only when two windows in a row find more (while this process's own
    # extra threads crowd a neighbour, the neighbour's use understates what
    # it wants). The first window starts at the first use, sized from the
    # threads other processes run at that moment (others_running). Once the
    # count found differs from the one it set (the user changed it,
    # threadpoolctl for instance), it stops.

    def __init__(self, blas, team, limit, cpus, capacity):
        self.blas = blas
        self.team = team
        self.limit = limit
        self.cpus = cpus
        self.capacity = capacity
        self.next_sample = 0.0
        self.window = None
        self.others = 0.0
        self.set_to = None
        self.rising = False

    def start(self):
        others = others_running()
        self.others = 0.0 if others is None else float(others)
        self._apply(threads_for(self.capacity - self.others, self.limit))
        self._begin_window()

    def _begin_window(self):
        busy = _busy_seconds(self.cpus)
        self.window = (time.monotonic(), busy, time.process_time())
        self.next_sample = self.window[0] + SAMPLE_SECONDS

    def sample(self):
        now = time.monotonic()
        start, busy0, ours0 = self.window
        busy = _busy_seconds(self.cpus)
        ours = time.process_time()
        if busy is None or busy0 is None:
            _state["governor"] = None  # no /proc/stat: stay as started
            return
        elapsed = now - start
        others = (busy - busy0 - (ours - ours0)) / elapsed
        self.others = max(0.0, others)
        wanted = threads_for(self.capacity - self.others, self.limit)
        if self.set_to is not None and wanted > self.set_to and not self.rising:
            self.rising = True  # more only if the next window agrees
        else:
            self.rising = False
            self._apply(wanted)
        self._begin_window()

    def _apply(self, threads):
        # Leaves the count alone while a team run holds it at one thread.
        lock = self.team.lock
        if not lock.acquire(blocking=False):
            return
        try:
            current = self.blas.num_threads()
            if self.set_to is not None and current != self.set_to:
                _state["governor"] = None  # changed by someone else: theirs now
                return
            if current != threads:
                self.blas.set_num_threads(threads)
            self.set_to = threads
        finally:
            lock.release()

    def after_fork(self):
        # The child's CPU times start from zero; start a fresh window.
        self.team = _state["team"] or self.team
        self._begin_window()


def engage():
    """Sets up the CPU team on first use; later, follows the machine's load.

    The first call applies the host memory retention
    (``CHAINER_HOST_MEMORY_RETENTION``, see :func:`_apply_retention`) and,
    unless ``CHAINER_CPU_PARALLEL`` is ``0``/``off``, creates the team over
    NumPy's OpenBLAS (where its thread controls exist; see
    :func:`chainer_cpu._blas.openblas_threads`), shortens OpenBLAS's idle
    spin and, in ``auto`` mode, starts sizing the BLAS's thread count to the
    free CPUs. Later calls cost a clock read, and every
    :data:`SAMPLE_SECONDS` one look at ``/proc/stat``. Kernels that use the
    team call it before their work.
    """
    if not _state["configured"]:
        _configure()
    governor = _state["governor"]
    if governor is not None and time.monotonic() >= governor.next_sample:
        governor.sample()


def _configure():
    _state["configured"] = True
    _apply_retention()
    chosen = mode()
    if chosen == "off":
        return
    blas = _blas.openblas_threads()
    if blas is None:
        return
    if "OPENBLAS_THREAD_TIMEOUT" not in os.environ:
        blas.set_idle_spin(IDLE_SPIN)
    team = _Team(blas)
    if _state["team"] is None:
        _state["team"] = team
    if chosen == "auto" and not any(os.environ.get(v) for v in _THREAD_VARS):
        cpus, capacity = usable_cpus()
        limit = max(1, min(blas.num_threads(), math.floor(capacity)))
        governor = _Governor(blas, team, limit, cpus, capacity)
        _state["governor"] = governor
        governor.start()


def _apply_retention():
    # chainer-core's default retention for kernels that churn large
    # temporaries, unless the variable says ``off`` or a retention is set
    # already (import chainer applied an explicit number of bytes and checked
    # the value; chainer.backend.set_host_memory_retention may have run).
    if backend.get_host_memory_retention() is not None:
        return
    value = os.environ.get(_RETENTION_ENV, "").strip().lower()
    if value == "off":
        return
    nbytes = DEFAULT_RETENTION if value in ("", "default") else int(value)
    backend.set_host_memory_retention(nbytes)


def describe():
    """The CPU threads line of :func:`chainer.print_runtime_info`.

    Returns:
        str: The team's width and OpenBLAS's idle spin, or why there is no
        team; then the GEMM of chainer-cpu's kernels
        (:func:`chainer_cpu._gemm.describe`) and the engine of float32
        convolutions (:func:`chainer_cpu._onednn.describe`).
    """
    from chainer_cpu import _gemm  # these import this module
    from chainer_cpu import _onednn

    return (
        f"{_team_line()}; GEMM: {_gemm.describe()}; "
        f"float32 convolutions: {_onednn.describe()}"
    )


def _team_line():
    team = _state["team"]
    if team is None:
        if mode() == "off":
            return "off (CHAINER_CPU_PARALLEL)"
        if not _state["configured"]:
            return "not set up yet (first NumPy convolution or training step)"
        return "off (no OpenBLAS thread controls)"
    return f"{width()} (OpenBLAS idle spin 2**{team.blas.idle_spin()} cycles)"


def width():
    """How many threads :func:`run` uses now (1 without a team).

    The BLAS's own thread count (``OPENBLAS_NUM_THREADS``, ``threadpoolctl``,
    or the load-following count of :func:`engage`) sets it.
    """
    team = _state["team"]
    return 1 if team is None else max(1, team.blas.num_threads())


#: The helpers' measured lag is stretched by this fraction in
#: :func:`caller_share`, so that they tend to finish before the caller: a
#: caller that waits for a helper sleeps, and waking it takes another
#: cross-CPU wake-up.
LAG_MARGIN = 0.25


def caller_share(seconds):
    """The calling thread's fraction of a job that :func:`run` splits by size.

    The helpers start their parts some time after :func:`run` is called (a
    wake-up from another CPU: 50-100 us on some virtual machines, where an
    idle virtual CPU's halt is a VM exit, much less on others); the team
    measures that lag on every run. A job that the caller splits in
    shares ``caller_share(seconds)`` for itself and equal parts of the rest
    for the helpers finishes on all threads at once.

    Args:
        seconds (float): The whole job's time on one thread (an estimate).

    Returns:
        float: In ``[1 / width(), 1]``; ``1 / width()`` without a measured
        lag or an estimate.
    """
    threads = width()
    if threads <= 1:
        return 1.0
    even = 1.0 / threads
    team = _state["team"]
    if seconds <= 0 or team is None or team.lag <= 0:
        return even
    ahead = min(1.0, team.lag * (1 + LAG_MARGIN) / seconds)
    return ahead + (1.0 - ahead) * even


def busy():
    """Whether a :func:`run` is in progress (a new one would run on its caller).

    Kernels that split work themselves ask this to leave items whole when
    they are already one item of a run.
    """
    team = _state["team"]
    return team is not None and team.lock.locked()


def by_ranges(fn, count, parallel=True):
    """Runs ``fn(start, stop)`` over contiguous ranges covering ``range(count)``.

    One range per thread of the team when ``parallel`` (the caller's size
    threshold) holds, else one range on the calling thread.
    """
    threads = min(width() if parallel else 1, count)
    if threads <= 1:
        fn(0, count)
        return
    bounds = [count * i // threads for i in range(threads + 1)]
    run(lambda i: fn(bounds[i], bounds[i + 1]), threads)


#: Whether :func:`by_blocks` chooses among its ways by timing them (False:
#: the team with the caller's blocks; for comparisons).
CHOOSE_BLOCKS = True
#: Calls of one job that :func:`by_blocks` times with each of its ways
#: (after one untimed call) before it keeps the fastest.
TRIALS = 3
#: ... and after this many calls with the way kept, times them all again.
RETRY_CALLS = 5000
# by_blocks' choices: job key -> _Ways.
_ways: dict = {}
_MAX_JOBS = 1024


class _Ways:
    # Ways of running one job: after an untimed call, each timed TRIALS
    # times in turn; then the fastest, kept for RETRY_CALLS calls.

    def __init__(self, options):
        self.options = options
        self.warm = False
        self._restart()

    def _restart(self):
        self.fastest = [math.inf] * len(self.options)
        self.timed = 0
        self.chosen = None
        self.kept = 0

    def next(self):
        # (index of the way to time or -1, the way).
        if self.chosen is not None:
            self.kept += 1
            if self.kept <= RETRY_CALLS:
                return -1, self.chosen
            self._restart()  # a load that slowed one way may be gone
        if not self.warm:  # memory and caches warm up, untimed
            self.warm = True
            return -1, self.options[0]
        if self.timed == len(self.options) * TRIALS:
            best = min(range(len(self.options)), key=self.fastest.__getitem__)
            self.chosen = self.options[best]
            return -1, self.chosen
        index = self.timed % len(self.options)
        self.timed += 1
        return index, self.options[index]

    def record(self, index, seconds):
        self.fastest[index] = min(self.fastest[index], seconds)


def by_blocks(fn, count, block, dtype, parallel=True):
    """Runs ``fn(start, stop, scratch)`` over ``range(count)`` in blocks of ``block``.

    The blocks go to the team's threads in turn when ``parallel`` (the
    caller's size threshold) holds, else all to the calling thread.
    ``scratch`` is a 1-d array of ``stop - start`` elements of ``dtype``,
    private to the thread running the block.

    A block's NumPy and BLAS calls release the GIL, and each thread takes it
    back between them; where waking a thread from another CPU is slow (a
    virtual machine's halted CPU), those hand-overs can cost more than the
    second thread gains: Adam's update of a million float32 parameters took
    2.17 ms on the team in 52 K-element blocks, 1.96 ms on one thread and
    1.33 ms on the team in two blocks per thread (2-vCPU KVM guest, Xeon).
    So for a job (``fn``'s code, ``count``, ``block``, ``dtype``, team
    width) seen for the first time, the team with these blocks, the team
    with two blocks per thread and the calling thread alone are each timed
    on :data:`TRIALS` calls, and the fastest is kept for
    :data:`RETRY_CALLS` calls, after which they are timed again.
    """
    threads = width() if parallel else 1
    if threads <= 1 or count <= block or not CHOOSE_BLOCKS:
        _blocks(fn, count, block, dtype, threads > 1)
        return
    key = (getattr(fn, "__code__", None), count, block, numpy.dtype(dtype), threads)
    ways = _ways.get(key)
    if ways is None:
        if len(_ways) >= _MAX_JOBS:
            _ways.clear()
        coarse = max(block, -(-count // (2 * threads)))
        options = [(True, block), (True, coarse), (False, block)]
        if coarse == block:
            del options[1]
        ways = _ways[key] = _Ways(options)
    index, (team, size) = ways.next()
    if index < 0:
        _blocks(fn, count, size, dtype, team)
        return
    start = _clock()
    _blocks(fn, count, size, dtype, team)
    ways.record(index, _clock() - start)


def _blocks(fn, count, block, dtype, parallel):
    # by_blocks with the given block and placement.
    starts = range(0, count, block)
    # Thread t of the team runs blocks t, t + w, ... (see run), so each
    # thread has its own row of scratch.
    scratch = numpy.empty((max(1, width()) if parallel else 1, block), dtype)

    def one(k):
        start = starts[k]
        stop = min(start + block, count)
        fn(start, stop, scratch[k % len(scratch), : stop - start])

    if parallel:
        run(one, len(starts))
    else:
        for k in range(len(starts)):
            one(k)


def run(fn, count):
    """Calls ``fn(i)`` for ``i`` in ``range(count)`` on the team's threads.

    Thread ``t`` of ``w`` takes items ``t, t + w, ...``; the BLAS runs one
    thread per call meanwhile. Without a team (before :func:`engage`, or
    with ``CHAINER_CPU_PARALLEL=0``), for a single item, inside another
    :func:`run` or while another thread runs one, the items run on the
    calling thread in order. ``fn`` must be safe to call from several
    threads at once for different items.

    Args:
        fn (callable): Called with the item's index.
        count (int): Number of items.

    Returns:
        list: ``fn``'s results, in item order.

    Raises:
        BaseException: The first error an item raised (the calling thread's
            first); all threads have stopped by then.
    """
    team = _state["team"]
    n = 1 if team is None else min(count, team.blas.num_threads())
    if n <= 1 or not team.lock.acquire(blocking=False):
        return [fn(i) for i in range(count)]
    try:
        return team.run(fn, count, n)
    finally:
        team.lock.release()


def _after_fork():
    # The helper threads do not exist in a forked child; start afresh there.
    team = _state["team"]
    if team is not None:
        _state["team"] = _Team(team.blas)
    governor = _state["governor"]
    if governor is not None:
        governor.after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
