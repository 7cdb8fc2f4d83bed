"""The seeds' computational-graph and function-hook examples, run as written.

References read ``004:2541`` = line 2541 of the seed file starting with
``004_``.
"""

import io

import numpy as np
import pytest

import chainer
from chainer import computational_graph
from chainer import function_hooks

# ---------------------------------------------------------------------------
# Computational graph (004:2541-2600)
# ---------------------------------------------------------------------------


def test_build_computational_graph_and_dump():
    # 004:2541-2556: build_computational_graph(vs) and g.dump() to a file.
    x = chainer.Variable(np.ones(3, dtype=np.float32), name="x")
    y = x * 2 + 1
    g = computational_graph.build_computational_graph([y])
    assert isinstance(g, computational_graph.ComputationalGraph)
    kinds = sorted(type(node).__name__ for node in g.nodes)
    assert kinds == ["AddConstant", "MulConstant"] + ["VariableNode"] * 3
    assert len(g.edges) == 4
    dot = g.dump()
    assert dot.startswith("digraph")
    out = io.StringIO()
    out.write(g.dump())
    assert "->" in out.getvalue()


def test_graph_keeps_only_backward_reachable_nodes():
    # 004:2573-2594: z and g are not backward-reachable from y.
    x = chainer.Variable(np.ones(3, dtype=np.float32))
    y = x * 2
    z = x + 1
    g = computational_graph.build_computational_graph([y])
    assert sorted(type(n).__name__ for n in g.nodes) == [
        "MulConstant",
        "VariableNode",
        "VariableNode",
    ]
    g_both = computational_graph.build_computational_graph([y, z])
    assert len(g_both.nodes) == 5


def test_graph_stops_at_unchained_variables():
    # 004:2567-2569: backward step is stopped where unchain_backward was called.
    x = chainer.Variable(np.ones(3, dtype=np.float32))
    h = x * 2
    y = h + 1
    h.unchain_backward()
    g = computational_graph.build_computational_graph([y])
    assert sorted(type(n).__name__ for n in g.nodes) == [
        "AddConstant",
        "VariableNode",
        "VariableNode",
    ]


def test_build_computational_graph_needs_variables():
    # Bad input for build_computational_graph (004:2557): Variables only.
    with pytest.raises(TypeError):
        computational_graph.build_computational_graph([np.ones(3)])


# ---------------------------------------------------------------------------
# Function hooks (001:1866-1878, 001:1965-1973)
# ---------------------------------------------------------------------------


class RecordingHook(chainer.FunctionHook):
    name = "recording"

    def __init__(self):
        self.events = []

    def forward_preprocess(self, function, in_data):
        self.events.append(("forward", function.label))

    def backward_preprocess(self, function, in_data, out_grad):
        self.events.append(("backward", function.label))


class Double(chainer.Function):
    def forward(self, inputs):
        return (inputs[0] * 2,)

    def backward(self, inputs, grad_outputs):
        return (grad_outputs[0] * 2,)


def test_function_local_hook_registered_before_the_call():
    # 001:1866-1878: add_hook, then call; the hook sees both passes.
    hook = RecordingHook()
    f = Double()
    f.add_hook(hook, "rec")
    assert list(f.local_function_hooks) == ["rec"]
    y = f(chainer.Variable(np.ones(2, dtype=np.float32)))
    y.grad = np.ones(2, dtype=np.float32)
    y.backward()
    assert hook.events == [("forward", "Double"), ("backward", "Double")]


def test_function_local_hook_add_and_delete():
    # 001:1871-1878, 1932-1934, 1969-1973: per-function hooks by name.
    hook = RecordingHook()
    f = Double()
    y = f(chainer.Variable(np.ones(2, dtype=np.float32)))
    f.add_hook(hook, "rec")
    assert list(f.local_function_hooks) == ["rec"]
    y.grad = np.ones(2, dtype=np.float32)
    y.backward()
    assert hook.events == [("backward", "Double")]
    f.delete_hook("rec")
    assert list(f.local_function_hooks) == []
    with pytest.raises(KeyError):
        f.delete_hook("rec")


def test_global_function_hooks_apply_to_every_function():
    # 001:1972-1973: hooks applied to all functions (chainer.get_function_hooks
    # in Chainer 7, entered with a with statement).
    hook = RecordingHook()
    x = chainer.Variable(np.ones(2, dtype=np.float32))
    with hook:
        assert "recording" in chainer.get_function_hooks()
        Double()(x) * 3
    assert "recording" not in chainer.get_function_hooks()
    assert hook.events == [("forward", "Double"), ("forward", "_ * 3.0")]


def test_timer_and_print_hooks():
    # Built-in FunctionHooks (not in the seeds) on the 001:1972 protocol.
    timer = function_hooks.TimerHook()
    x = chainer.Variable(np.ones(3, dtype=np.float32))
    with timer:
        x * x + x
    assert [name for name, _ in timer.call_history] == ["Mul", "Add"]
    assert timer.total_time() >= 0
    report = io.StringIO()
    timer.print_report(file=report)
    assert "Mul" in report.getvalue()

    printed = io.StringIO()
    with function_hooks.PrintHook(file=printed):
        x * x
    assert "_ * _" in printed.getvalue()
