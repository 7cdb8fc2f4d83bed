"""Helpers of the profiling hooks: function names and report tables."""

from __future__ import annotations

from chainer import function


def function_name(func):
    """Returns the class name of ``func``, looking through old-style adapters."""
    if isinstance(func, function.FunctionAdapter):
        func = func.function
    return type(func).__name__


def write_table(entries, file):
    """Writes rows of strings as right-aligned columns, then flushes ``file``."""
    widths = [max(len(row[i]) for row in entries) for i in range(len(entries[0]))]
    template = "  ".join("{:>%d}" % w for w in widths)
    for row in entries:
        file.write(template.format(*row))
        file.write("\n")
    if hasattr(file, "flush"):
        file.flush()
