"""``TimerHook``: measures the elapsed time of each function."""

from __future__ import annotations

import sys
import time

import numpy

from chainer import backend
from chainer import function_hook
from chainer.function_hooks import _report


class TimerHook(function_hook.FunctionHook):
    """Function hook for measuring the elapsed time of functions.

    Forward and backward of every function are timed separately. On NumPy
    arrays host time is measured (``time.perf_counter``); on GPU arrays the
    hook records CUDA events and synchronizes on the end event, so the times
    include the kernels themselves.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> from chainer import function_hooks
        >>> x = chainer.Variable(np.ones((2, 3), np.float32))
        >>> with function_hooks.TimerHook() as hook:
        ...     y = x * 2
        >>> len(hook.call_history), hook.total_time() >= 0
        (1, True)

    Attributes:
        call_history (list): ``(function name, elapsed seconds)`` for each
            call, in the order the calls finished.
    """

    name = "TimerHook"
    table = {"sec": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}

    def __init__(self):
        self.call_history = []
        self._running_stack = []
        self._depth = 0
        self._total_time = 0.0

    def _preprocess(self, arrays):
        xp = backend.get_array_module(*arrays)
        cuda = None if xp is numpy else getattr(xp, "cuda", None)
        if cuda is not None and hasattr(cuda, "Event"):
            start, stop = cuda.Event(), cuda.Event()
            start.record()
            self._running_stack.append((cuda, start, stop))
        else:
            self._running_stack.append((None, time.perf_counter(), None))
        self._depth += 1

    def _postprocess(self, func):
        cuda, start, stop = self._running_stack.pop()
        if cuda is None:
            elapsed = time.perf_counter() - start
        else:
            stop.record()
            stop.synchronize()
            # get_elapsed_time gives milliseconds.
            elapsed = cuda.get_elapsed_time(start, stop) / 1000.0
        self.call_history.append((_report.function_name(func), elapsed))
        self._depth -= 1
        if self._depth == 0:
            # Nested calls are already inside their caller's time.
            self._total_time += elapsed

    def forward_preprocess(self, function, in_data):
        """Starts timing the forward computation."""
        self._preprocess(in_data)

    def forward_postprocess(self, function, in_data):
        """Stops timing the forward computation and records it."""
        self._postprocess(function)

    def backward_preprocess(self, function, in_data, out_grad):
        """Starts timing the backward computation."""
        self._preprocess(tuple(in_data) + tuple(out_grad))

    def backward_postprocess(self, function, in_data, out_grad):
        """Stops timing the backward computation and records it."""
        self._postprocess(function)

    def total_time(self):
        """Returns the total elapsed time in seconds.

        Calls made inside another timed call are counted once, as part of
        the outer call.
        """
        return self._total_time

    def summary(self):
        """Returns a summary of the time profiling in functions.

        Returns:
            dict: Ordered by first call: function name to
            ``{'elapsed_time': seconds, 'occurrence': count}``.
        """
        summary = {}
        for name, elapsed in self.call_history:
            record = summary.get(name)
            if record is None:
                record = summary[name] = {"elapsed_time": 0.0, "occurrence": 0}
            record["elapsed_time"] += elapsed
            record["occurrence"] += 1
        return summary

    @staticmethod
    def _choose_unit(second):
        factor = 1
        for unit in ("sec", "ms", "us"):
            if second * factor >= 1:
                return factor, unit
            factor *= 1000
        return factor, "ns"

    def print_report(self, unit="auto", file=sys.stdout):
        """Prints a summary report of the time profiling in functions.

        Args:
            unit (str): Time unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``, or
                ``'auto'`` to choose one per function.
            file: Output file-like object.
        """
        if unit != "auto" and unit not in self.table:
            raise ValueError(
                f"unit must be 'auto' or one of {sorted(self.table)}, not {unit!r}"
            )
        entries = [("FunctionName", "ElapsedTime", "Occurrence")]
        for name, record in self.summary().items():
            second = record["elapsed_time"]
            if unit == "auto":
                factor, shown = self._choose_unit(second)
            else:
                factor, shown = self.table[unit], unit
            entries.append(
                (name, "%3.2f%s" % (second * factor, shown), str(record["occurrence"]))
            )
        _report.write_table(entries, file)
