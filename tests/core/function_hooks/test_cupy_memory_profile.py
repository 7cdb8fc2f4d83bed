import io
import re
import sys

import pytest

from chainer import function_hooks


def test_numpy_functions_use_zero_bytes(square, x):
    with function_hooks.CupyMemoryProfileHook() as hook:
        y = square(x)
    y.grad = y.array.copy()
    with hook:
        y.backward()
    assert hook.call_history
    assert hook.call_history[0] == ("_Square", 0, 0, 0)
    assert hook.total_used_bytes() == 0
    assert hook.total_acquired_bytes() == 0
    summary = hook.summary()
    assert summary["_Square"] == {
        "used_bytes": 0,
        "acquired_bytes": 0,
        "occurrence": 2,
    }
    # Calls inside Square's backward are nested one level deep.
    assert any(depth == 1 for *_, depth in hook.call_history)


def test_cupy_is_not_imported(square, x):
    had_cupy = "cupy" in sys.modules
    with function_hooks.CupyMemoryProfileHook():
        square(x)
    assert ("cupy" in sys.modules) == had_cupy


def test_print_report(square, x):
    with function_hooks.CupyMemoryProfileHook() as hook:
        square(x)
    out = io.StringIO()
    hook.print_report(file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == [
        "FunctionName",
        "UsedBytes",
        "AcquiredBytes",
        "Occurrence",
    ]
    assert re.fullmatch(r"\s*_Square\s+0\.00B\s+0\.00B\s+1", lines[1])
    out = io.StringIO()
    hook.print_report(unit="KB", file=out)
    assert "0.00KB" in out.getvalue()


def test_humanized_units():
    hook = function_hooks.CupyMemoryProfileHook()
    hook.call_history.append(("F", 3 * 1024**2, 1536, 0))
    out = io.StringIO()
    hook.print_report(file=out)
    assert re.search(r"F\s+3\.00MB\s+1\.50KB\s+1", out.getvalue())


def test_bad_unit():
    with pytest.raises(ValueError, match="unit"):
        function_hooks.CupyMemoryProfileHook().print_report(unit="bits")
