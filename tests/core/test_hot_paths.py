"""The fast paths of ``FunctionNode.apply`` and the backprop engine agree with
their general paths (taken whenever a function hook is active)."""

import ast
import inspect
import textwrap

import numpy
import pytest

import chainer
from chainer import _backprop
from chainer import function_hook
from chainer import function_node


class _NoOpHook(function_hook.FunctionHook):
    name = "noop"


class _Scale(function_node.FunctionNode):
    """y = a * x with a configurable backward result."""

    def __init__(self, result="variable"):
        self.result = result

    def forward(self, inputs):
        (x,) = inputs
        return (2 * x,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        gx = 2 * gy
        if self.result == "array":
            return (gx.array,)
        if self.result == "list":
            return [gx]
        if self.result == "none":
            return (None,)
        if self.result == "bad_shape":
            return (chainer.Variable(gx.array[:1]),)
        if self.result == "bad_dtype":
            return (chainer.Variable(gx.array.astype(numpy.float64)),)
        if self.result == "two":
            return (gx, gx)
        return (gx,)


class _AddMul(function_node.FunctionNode):
    """(a + b, a * b): two inputs, two outputs; gradients per input."""

    def forward(self, inputs):
        a, b = inputs
        self.retain_inputs((0, 1))
        return a + b, a * b

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        g_sum, g_prod = grad_outputs
        ga = gb = None
        if g_sum is not None:
            ga = gb = g_sum
        if g_prod is not None:
            ga = g_prod * b if ga is None else ga + g_prod * b
            gb = g_prod * a if gb is None else gb + g_prod * a
        # One gradient per input, whatever the targets: the engine selects.
        return ga, gb


def _grads(hooked, build):
    x = chainer.Variable(numpy.array([1.0, 2.0, 3.0], numpy.float32))
    w = chainer.Variable(numpy.array([0.5, -1.0, 2.0], numpy.float32))
    if hooked:
        with _NoOpHook():
            y = build(x, w)
            y.grad = numpy.ones_like(y.array)
            y.backward()
    else:
        y = build(x, w)
        y.grad = numpy.ones_like(y.array)
        y.backward()
    return (
        None if x.grad is None else x.grad.copy(),
        None if w.grad is None else w.grad.copy(),
        y.array.copy(),
    )


@pytest.mark.parametrize("result", ["variable", "array", "list", "none"])
def test_one_input_node_same_on_both_paths(result):
    def build(x, w):
        (h,) = _Scale(result).apply((x,))
        return h * w

    fast = _grads(False, build)
    general = _grads(True, build)
    for a, b in zip(fast, general, strict=True):
        if a is None:
            assert b is None
        else:
            numpy.testing.assert_array_equal(a, b)
    if result == "none":
        assert fast[0] is None
    else:
        numpy.testing.assert_array_equal(fast[0], 2 * numpy.array([0.5, -1, 2]))


def test_two_input_two_output_node_same_on_both_paths():
    def build(x, w):
        s, p = _AddMul().apply((x, w))
        return s * p

    fast = _grads(False, build)
    general = _grads(True, build)
    for a, b in zip(fast, general, strict=True):
        numpy.testing.assert_array_equal(a, b)


def test_only_some_inputs_need_gradients():
    # A constant second input: the node's backward still returns two
    # gradients (one per input) and only the first is routed.
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float32))
    c = chainer.Variable(numpy.array([3.0, 4.0], numpy.float32), requires_grad=False)
    _, p = _AddMul().apply((x, c))
    p.grad = numpy.ones(2, numpy.float32)
    p.backward()
    numpy.testing.assert_array_equal(x.grad, [3.0, 4.0])
    assert c.grad is None


@pytest.mark.parametrize(
    ("result", "error", "match"),
    [
        ("bad_shape", ValueError, "shape of data and grad mismatch"),
        ("bad_dtype", TypeError, "dtype of data and grad mismatch"),
        ("two", ValueError, "number of gradients returned by _Scale.backward"),
    ],
)
@pytest.mark.parametrize("hooked", [False, True])
def test_bad_gradients_rejected_on_both_paths(result, error, match, hooked):
    def build(x, w):
        (h,) = _Scale(result).apply((x,))
        return h * w

    with pytest.raises(error, match=match):
        _grads(hooked, build)


def test_default_backward_accumulate_counts_like_the_engine():
    node = _Scale("two")
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    node.apply((x,))
    gy = chainer.Variable(numpy.ones(2, numpy.float32))
    with pytest.raises(ValueError, match=r"incorrect: 2 \(expected 1 or 1\)"):
        node.backward_accumulate((0,), (gy,), (None,))


def test_apply_outputs_same_with_and_without_hooks():
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    plain = _AddMul().apply((x, x))
    with _NoOpHook():
        hooked = _AddMul().apply((x, x))
    for a, b in zip(plain, hooked, strict=True):
        numpy.testing.assert_array_equal(a.array, b.array)
        assert a.creator is not None
        assert b.creator is not None


def _length(func):
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    node = tree.body[0]
    return node.end_lineno - node.lineno + 1


def test_hot_loops_stay_split_into_phases():
    # STYLE.md: a method over ~60 lines is a cue to split. These two were
    # 161 and 194 lines with inlined copies of their own helpers; their
    # general cases now live in named phases (FunctionNode._check_types,
    # _record_graph; _backprop._seed, _take_grads, _backward_node,
    # _check_grads, _to_leaf), leaving one inline fast path each.
    assert _length(function_node.FunctionNode.apply) <= 100
    assert _length(_backprop._propagate) <= 120
