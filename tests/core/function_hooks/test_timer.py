import io
import re

import pytest

import chainer
from chainer import function_hooks


def test_forward_history(square, x):
    with function_hooks.TimerHook() as hook:
        square(x)
        square(x)
    assert [name for name, _ in hook.call_history] == ["_Square", "_Square"]
    assert all(t >= 0 for _, t in hook.call_history)
    assert hook.total_time() == pytest.approx(sum(t for _, t in hook.call_history))
    summary = hook.summary()
    assert list(summary) == ["_Square"]
    assert summary["_Square"]["occurrence"] == 2
    assert summary["_Square"]["elapsed_time"] == pytest.approx(hook.total_time())


def test_backward_counts_nested_calls_once(square, x):
    y = square(x)
    y.grad = y.array.copy()
    with function_hooks.TimerHook() as hook:
        y.backward()
    names = [name for name, _ in hook.call_history]
    # Square's backward runs differentiable ops, which finish first.
    assert names[-1] == "_Square"
    assert len(names) > 1
    assert hook.total_time() == pytest.approx(hook.call_history[-1][1])


def test_not_registered_after_exit(square, x):
    with function_hooks.TimerHook() as hook:
        pass
    square(x)
    assert hook.call_history == []
    assert hook.total_time() == 0


def test_print_report(square, x):
    with function_hooks.TimerHook() as hook:
        square(x)
    out = io.StringIO()
    hook.print_report(file=out)
    lines = out.getvalue().splitlines()
    assert re.fullmatch(r"\s*FunctionName\s+ElapsedTime\s+Occurrence", lines[0])
    assert re.fullmatch(r"\s*_Square\s+\d+\.\d\d(sec|ms|us|ns)\s+1", lines[1])
    assert len(lines[0]) == len(lines[1])

    out = io.StringIO()
    hook.print_report(unit="ns", file=out)
    assert re.search(r"\d+\.\d\dns", out.getvalue())


def test_print_report_bad_unit():
    with pytest.raises(ValueError, match="unit"):
        function_hooks.TimerHook().print_report(unit="hours")


def test_old_style_function_is_named_by_its_class(x):
    class Double(chainer.Function):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward(self, inputs, grad_outputs):
            return (grad_outputs[0] * 2,)

    with function_hooks.TimerHook() as hook:
        Double()(x)
    assert [name for name, _ in hook.call_history] == ["Double"]
