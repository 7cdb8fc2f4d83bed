import io
import re

import numpy
import pytest

import chainer
from chainer import link_hooks


class Double(chainer.Link):
    def forward(self, x):
        return x * 2


class Outer(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.inner = Double()

    def forward(self, x):
        return self.inner(self.inner(x))


def test_history_and_summary():
    x = numpy.ones(3, numpy.float32)
    with link_hooks.TimerHook() as hook:
        Double()(x)
        Double()(x)
    assert [name for name, _ in hook.call_history] == ["Double", "Double"]
    assert all(t >= 0 for _, t in hook.call_history)
    assert hook.total_time() == pytest.approx(sum(t for _, t in hook.call_history))
    summary = hook.summary()
    assert list(summary) == ["Double"]
    assert summary["Double"]["occurrence"] == 2
    assert summary["Double"]["elapsed_time"] == pytest.approx(hook.total_time())


def test_nested_calls_count_once_in_total():
    hook = link_hooks.TimerHook()
    model = Outer()
    model.add_hook(hook)
    model.inner.add_hook(hook)
    model(numpy.ones(2, numpy.float32))
    assert [name for name, _ in hook.call_history] == ["Double", "Double", "Outer"]
    assert hook.total_time() == pytest.approx(hook.call_history[-1][1])
    assert hook.call_history[-1][1] >= hook.call_history[0][1]


def test_not_active_after_exit():
    with link_hooks.TimerHook() as hook:
        pass
    Double()(numpy.ones(1, numpy.float32))
    assert hook.call_history == []
    assert hook.total_time() == 0


def test_print_report():
    hook = link_hooks.TimerHook()
    hook.call_history = [("Double", 0.5), ("Outer", 2e-4), ("Double", 0.25)]
    out = io.StringIO()
    hook.print_report(file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["LinkName", "ElapsedTime", "Occurrence"]
    assert lines[1].split() == ["Double", "750.00ms", "2"]
    assert lines[2].split() == ["Outer", "200.00us", "1"]
    # Columns are right-aligned to one width.
    assert len({len(line) for line in lines}) == 1
    out = io.StringIO()
    hook.print_report(unit="sec", file=out)
    assert re.search(r"Double\s+0\.75sec\s+2", out.getvalue())


def test_print_report_defaults_to_stdout(capsys):
    link_hooks.TimerHook().print_report()
    assert "LinkName" in capsys.readouterr().out


def test_print_report_bad_unit():
    with pytest.raises(ValueError, match="unit"):
        link_hooks.TimerHook().print_report(unit="minutes")
