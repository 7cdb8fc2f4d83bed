"""``CupyMemoryProfileHook``: measures the GPU memory each function takes."""

from __future__ import annotations

import sys

import numpy

from chainer import backend
from chainer import function_hook
from chainer.function_hooks import _report


def _make_cumulative_hook(xp):
    # Built from the array module in use so that CuPy is imported only when
    # its arrays are already around.
    base = xp.cuda.memory_hook.MemoryHook

    class _CumulativeMemoryHook(base):
        name = "CupyMemoryCumulativeHook"

        def __init__(self):
            self.used_bytes = 0
            self.acquired_bytes = 0

        def alloc_preprocess(self, **kwargs):
            self.acquired_bytes += kwargs["mem_size"]

        def malloc_preprocess(self, **kwargs):
            self.used_bytes += kwargs["mem_size"]

    return _CumulativeMemoryHook()


class CupyMemoryProfileHook(function_hook.FunctionHook):
    """Function hook for measuring memory usage of functions in CuPy's pool.

    For each forward and backward call it records *used bytes* (memory
    requested from CuPy's memory pool) and *acquired bytes* (memory the pool
    newly allocated from the GPU).

    The hook is usable on the CPU as well: functions on NumPy arrays are
    recorded with zero bytes, since NumPy memory is not pooled. CuPy is not
    imported by this hook; it starts watching CuPy's pool the first time a
    function receives CuPy arrays.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> from chainer import function_hooks
        >>> x = chainer.Variable(np.ones(3, np.float32))
        >>> with function_hooks.CupyMemoryProfileHook() as hook:
        ...     y = x * 2
        >>> hook.total_used_bytes()
        0

    Attributes:
        call_history (list): ``(function name, used bytes, acquired bytes,
            depth)`` for each call, in the order the calls finished.
    """

    name = "CupyMemoryProfileHook"
    _units = ("B", "KB", "MB", "GB", "TB", "PB", "EB", "ZB")
    table = {unit: 1024**i for i, unit in enumerate(_units)}

    def __init__(self):
        self.call_history = []
        self._memory_hook = None
        self._entered = False
        self._active = 0
        self._running_stack = []
        self._total_used_bytes = 0
        self._total_acquired_bytes = 0

    def added(self, function=None):
        """Starts watching CuPy's memory pool (once CuPy arrays are seen)."""
        self._active += 1
        if self._memory_hook is not None and not self._entered:
            self._memory_hook.__enter__()
            self._entered = True

    def deleted(self, function=None):
        """Stops watching CuPy's memory pool."""
        self._active -= 1
        if self._active <= 0 and self._entered:
            self._memory_hook.__exit__(None, None, None)
            self._entered = False

    def _counters(self, arrays):
        hook = self._memory_hook
        if hook is None:
            xp = backend.get_array_module(*arrays)
            if xp is numpy or not hasattr(getattr(xp, "cuda", None), "memory_hook"):
                return 0, 0
            hook = self._memory_hook = _make_cumulative_hook(xp)
        if not self._entered:
            hook.__enter__()
            self._entered = True
        return hook.used_bytes, hook.acquired_bytes

    def _preprocess(self, arrays):
        self._running_stack.append(self._counters(arrays))

    def _postprocess(self, func):
        start_used, start_acquired = self._running_stack.pop()
        hook = self._memory_hook
        if hook is None:
            used = acquired = 0
        else:
            used = hook.used_bytes - start_used
            acquired = hook.acquired_bytes - start_acquired
        depth = len(self._running_stack)
        self.call_history.append((_report.function_name(func), used, acquired, depth))
        if depth == 0:
            self._total_used_bytes += used
            self._total_acquired_bytes += acquired

    def forward_preprocess(self, function, in_data):
        """Records the pool counters before forward."""
        self._preprocess(in_data)

    def forward_postprocess(self, function, in_data):
        """Records the memory taken by forward."""
        self._postprocess(function)

    def backward_preprocess(self, function, in_data, out_grad):
        """Records the pool counters before backward."""
        self._preprocess(tuple(in_data) + tuple(out_grad))

    def backward_postprocess(self, function, in_data, out_grad):
        """Records the memory taken by backward."""
        self._postprocess(function)

    def total_used_bytes(self):
        """Returns the total bytes requested from CuPy's memory pool."""
        return self._total_used_bytes

    def total_acquired_bytes(self):
        """Returns the total bytes CuPy's memory pool allocated from the GPU."""
        return self._total_acquired_bytes

    def summary(self):
        """Returns a summary of memory profiling in functions.

        Returns:
            dict: Ordered by first call: function name to
            ``{'used_bytes': int, 'acquired_bytes': int, 'occurrence': int}``.
        """
        summary = {}
        for name, used, acquired, _depth in self.call_history:
            record = summary.get(name)
            if record is None:
                record = summary[name] = {
                    "used_bytes": 0,
                    "acquired_bytes": 0,
                    "occurrence": 0,
                }
            record["used_bytes"] += used
            record["acquired_bytes"] += acquired
            record["occurrence"] += 1
        return summary

    def _humanized_size(self, size):
        for unit in self._units[:-1]:
            if abs(size) < 1024:
                return size, unit
            size /= 1024.0
        return size, self._units[-1]

    def print_report(self, unit="auto", file=sys.stdout):
        """Prints a summary report of memory profiling in functions.

        Args:
            unit (str): Memory unit: one of ``'B'``, ``'KB'``, ``'MB'``,
                ``'GB'``, ``'TB'``, ``'PB'``, ``'EB'``, ``'ZB'``, or
                ``'auto'`` to choose one per value.
            file: Output file-like object.
        """
        if unit != "auto" and unit not in self.table:
            raise ValueError(
                f"unit must be 'auto' or one of {list(self._units)}, not {unit!r}"
            )
        entries = [("FunctionName", "UsedBytes", "AcquiredBytes", "Occurrence")]
        for name, record in self.summary().items():
            row = [name]
            for size in (record["used_bytes"], record["acquired_bytes"]):
                if unit == "auto":
                    value, shown = self._humanized_size(size)
                else:
                    value, shown = size / self.table[unit], unit
                row.append("%3.2f%s" % (value, shown))
            row.append(str(record["occurrence"]))
            entries.append(tuple(row))
        _report.write_table(entries, file)
