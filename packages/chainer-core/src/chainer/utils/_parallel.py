"""Fork-join work on the CPU's cores for NumPy kernels, with the BLAS single-threaded.

NumPy runs its elementwise work on one thread and its BLAS on OpenBLAS's
threads, which split every product between the cores. In a convolution
built from patch copies and GEMMs that means one core copies a chunk and
both multiply it: half of each freshly written chunk crosses to the other
core, which on the 2-core machine of ``benchmarks/`` made a layer's forward
2.5x slower for seconds at a time (``benchmarks/README.md``, "What the slow
phases are"). :func:`run` instead hands whole items (a chunk's copy and its
GEMM) to a team of threads, one per BLAS thread, with the BLAS set to one
thread meanwhile, so that each item's data stays on the core that made it.

OpenBLAS's idle workers spin for about 0.1 s after each threaded call and
keep their core busy, so the team's threads would share a core with them.
When the team is set up (at ``import chainer``), the spin is therefore cut
to ``2 ** IDLE_SPIN`` cycles (about 0.3 ms) unless ``OPENBLAS_THREAD_TIMEOUT``
is set. ``CHAINER_CPU_PARALLEL=0`` (or ``off``) leaves OpenBLAS alone and
runs every item on the calling thread.
"""

import os
import threading

from chainer.utils import _blas

_ENV = "CHAINER_CPU_PARALLEL"
#: OpenBLAS's idle spin set up with the team: 2 ** IDLE_SPIN CPU cycles.
IDLE_SPIN = 20

_state: dict = {"team": None, "configured": False}


class _Helper:
    # A daemon thread that runs one task at a time: fn(arg). ``_done`` is set
    # while it is idle.

    def __init__(self, index):
        self._go = threading.Event()
        self._done = threading.Event()
        self._done.set()
        self._task = None
        self._error = None
        self._thread = threading.Thread(
            target=self._loop, name=f"chainer-cpu-{index}", daemon=True
        )
        self._thread.start()

    def _loop(self):
        while True:
            self._go.wait()
            self._go.clear()
            fn, arg = self._task
            try:
                fn(arg)
            except BaseException as e:  # handed to the caller of run()
                self._error = e
            self._task = None
            self._done.set()

    def start(self, fn, arg):
        # A task left running by an interrupted run() finishes first.
        self._done.wait()
        self._error = None
        self._done.clear()
        self._task = (fn, arg)
        self._go.set()

    def wait(self):
        self._done.wait()
        error, self._error = self._error, None  # do not keep its frames alive
        return error


class _Team:
    def __init__(self, blas):
        self.blas = blas
        self.lock = threading.Lock()
        self.helpers = []

    def run(self, fn, count, width):
        blas = self.blas
        while len(self.helpers) < width - 1:
            self.helpers.append(_Helper(len(self.helpers) + 1))
        results = [None] * count

        def part(first):
            for i in range(first, count, width):
                results[i] = fn(i)

        threads = blas.num_threads()
        blas.set_num_threads(1)
        started = []
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
        return results


def configure_from_environment():
    """Sets up the team unless ``CHAINER_CPU_PARALLEL`` is ``0`` or ``off``.

    Called at ``import chainer``. Needs NumPy's OpenBLAS with its thread
    controls (see :func:`chainer.utils._blas.openblas_threads`); elsewhere
    there is no team.
    """
    if _state["configured"]:
        return
    _state["configured"] = True
    if os.environ.get(_ENV, "").strip().lower() in ("0", "off", "false", "no"):
        return
    blas = _blas.openblas_threads()
    if blas is None:
        return
    if "OPENBLAS_THREAD_TIMEOUT" not in os.environ:
        blas.set_idle_spin(IDLE_SPIN)
    _state["team"] = _Team(blas)


def width():
    """How many threads :func:`run` uses now (1 without a team).

    The BLAS's own thread count (``OPENBLAS_NUM_THREADS``, ``threadpoolctl``)
    sets it.
    """
    team = _state["team"]
    return 1 if team is None else max(1, team.blas.num_threads())


def run(fn, count):
    """Calls ``fn(i)`` for ``i`` in ``range(count)`` on the team's threads.

    Thread ``t`` of ``w`` takes items ``t, t + w, ...``; the BLAS runs one
    thread per call meanwhile. Without a team, for a single item, inside
    another :func:`run` or while another thread runs one, the items run on
    the calling thread in order. ``fn`` must be safe to call from several
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


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
