"""``TimerHook``: measures the elapsed time of the forward pass of each link."""

from __future__ import annotations

import sys
import time

import numpy

from chainer import link_hook

_UNITS = {"sec": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


def _auto_unit(seconds: float) -> str:
    for unit in ("sec", "ms", "us"):
        if seconds * _UNITS[unit] >= 1:
            return unit
    return "ns"


class TimerHook(link_hook.LinkHook):
    """Link hook for measuring the elapsed time of the forward pass of links.

    On a NumPy link host time is measured (``time.perf_counter``); on a GPU
    link the hook records CUDA events around the forward pass and waits for
    the end event, so the time includes the kernels.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> from chainer import link_hooks
        >>> class Double(chainer.Link):
        ...     def forward(self, x):
        ...         return x * 2
        >>> with link_hooks.TimerHook() as hook:
        ...     _ = Double()(np.ones(3, np.float32))
        >>> [name for name, _ in hook.call_history]
        ['Double']

    Attributes:
        call_history (list): ``(link class name, elapsed seconds)`` pairs, in
            the order the forward calls finished.
    """

    name = "TimerHook"
    table = dict(_UNITS)

    def __init__(self) -> None:
        self.call_history: list[tuple[str, float]] = []
        self._running_stack: list = []
        self._depth = 0
        self._total_time = 0.0

    def forward_preprocess(self, args) -> None:
        """Starts timing the forward pass of ``args.link``."""
        xp = args.link.xp
        cuda = None if xp is numpy else getattr(xp, "cuda", None)
        if cuda is not None and hasattr(cuda, "Event"):
            start, stop = cuda.Event(), cuda.Event()
            start.record()
            self._running_stack.append((cuda, start, stop))
        else:
            self._running_stack.append((None, time.perf_counter(), None))
        self._depth += 1

    def forward_postprocess(self, args) -> None:
        """Stops timing the forward pass of ``args.link`` and records it."""
        cuda, start, stop = self._running_stack.pop()
        if cuda is None:
            elapsed = time.perf_counter() - start
        else:
            stop.record()
            stop.synchronize()
            elapsed = cuda.get_elapsed_time(start, stop) / 1000.0  # ms -> s
        self._depth -= 1
        self.call_history.append((type(args.link).__name__, elapsed))
        if self._depth == 0:
            # A child's time is already inside its parent's.
            self._total_time += elapsed

    def total_time(self) -> float:
        """Returns the total elapsed time in seconds.

        Links called inside another timed link are counted once, as part of
        the outermost call.
        """
        return self._total_time

    def summary(self) -> dict:
        """Returns a summary of the time profiling in links.

        Returns:
            dict: Link class name (ordered by first call) to
            ``{'elapsed_time': seconds, 'occurrence': count}``.
        """
        summary: dict[str, dict] = {}
        for name, elapsed in self.call_history:
            record = summary.setdefault(name, {"elapsed_time": 0.0, "occurrence": 0})
            record["elapsed_time"] += elapsed
            record["occurrence"] += 1
        return summary

    def print_report(self, unit: str = "auto", file=None) -> None:
        """Prints a summary report of the time profiling in links.

        Args:
            unit (str): Time unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``, or
                ``'auto'`` to choose one per link.
            file: Output file-like object (``sys.stdout`` by default).
        """
        if unit != "auto" and unit not in _UNITS:
            raise ValueError(
                f"unit must be 'auto' or one of {sorted(_UNITS)}, not {unit!r}"
            )
        if file is None:
            file = sys.stdout
        rows = [("LinkName", "ElapsedTime", "Occurrence")]
        for name, record in self.summary().items():
            seconds = record["elapsed_time"]
            shown = _auto_unit(seconds) if unit == "auto" else unit
            rows.append(
                (
                    name,
                    "%3.2f%s" % (seconds * _UNITS[shown], shown),
                    str(record["occurrence"]),
                )
            )
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            file.write(
                "  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True))
            )
            file.write("\n")
        if hasattr(file, "flush"):
            file.flush()
