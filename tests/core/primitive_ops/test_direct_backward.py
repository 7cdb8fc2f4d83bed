"""Backward passes of the elementwise primitive ops compute on the arrays directly.

Without a graph to record (no double backprop), hooks, debug mode or a NumPy
kernel override, ``Mul``, ``MulConstant``, ``Sub``/``Neg`` and ``Div`` skip
``apply`` for the products inside their backward; the gradients, their
dtypes and their ``requires_grad`` are those of the ``apply`` path.
"""

import types

import numpy
import pytest

import chainer
from chainer import function_hook
from chainer import function_node
from chainer import plugins
from chainer.primitive_ops import basic_math


class _NoOpHook(function_hook.FunctionHook):
    name = "noop"


_CASES = {
    "mul": lambda x, y: x * y,
    "mul_broadcast": lambda x, y: x * y[:1],
    "mul_constant": lambda x, y: x * 0.5 + y,
    "sub": lambda x, y: x - y,
    "neg": lambda x, y: -x + y,
    "div": lambda x, y: x / y,
    "rtruediv": lambda x, y: 2.0 / y + x,
    "chain": lambda x, y: ((x * y + x) * 0.5 - y) / (y + 2),
}


def _inputs(dtype):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, (3, 4)).astype(dtype)
    y = rng.uniform(0.5, 2, (3, 4)).astype(dtype)
    return x, y


def _grads(f, dtype, hooked=False):
    xs = [chainer.Variable(a) for a in _inputs(dtype)]
    z = f(*xs)
    z.grad = numpy.ones_like(z.array)
    if hooked:
        with _NoOpHook():
            z.backward()
    else:
        z.backward()
    return [(v.grad, v.grad_var.requires_grad) for v in xs]


@pytest.fixture
def applies(monkeypatch):
    """Records the classes of the nodes applied."""
    seen = []
    original = function_node.FunctionNode.apply

    def apply(self, inputs):
        seen.append(type(self))
        return original(self, inputs)

    monkeypatch.setattr(function_node.FunctionNode, "apply", apply)
    return seen


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("case", sorted(_CASES))
def test_gradients_equal_those_of_the_apply_path(case, dtype):
    direct = _grads(_CASES[case], dtype)
    through_apply = _grads(_CASES[case], dtype, hooked=True)
    for (g, rg), (g_ref, rg_ref) in zip(direct, through_apply, strict=True):
        assert g.dtype == g_ref.dtype == dtype
        numpy.testing.assert_array_equal(g, g_ref)
        assert rg == rg_ref


@pytest.mark.parametrize("case", ["mul", "mul_constant", "sub", "div"])
def test_backward_applies_no_node(applies, case):
    x, y = (chainer.Variable(a) for a in _inputs(numpy.float32))
    z = _CASES[case](x, y)
    del applies[:]
    z.grad = numpy.ones_like(z.array)
    z.backward()
    assert applies == []


def _graph_classes(v):
    # Classes of the nodes in the graph behind v.
    seen, stack, classes = set(), [v.creator_node], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        classes.add(type(node))
        stack.extend(x.creator_node for x in node.inputs)
    return classes


def test_double_backprop_records_the_graph():
    x, y = (chainer.Variable(a) for a in _inputs(numpy.float32))
    z = x * y / y
    z.grad = numpy.ones_like(z.array)
    z.backward(enable_double_backprop=True)
    # gx = (gz / y) * y: the backward products are nodes of a graph.
    assert {basic_math.Mul, basic_math.Div} <= _graph_classes(x.grad_var)
    # The second derivative through the recorded graph: d/dy of dz/dx = 0.
    ones = chainer.Variable(numpy.ones_like(x.array))
    (ggy,) = chainer.grad([x.grad_var], [y], grad_outputs=[ones])
    numpy.testing.assert_allclose(ggy.array, 0, atol=1e-6)


def test_debug_mode_takes_apply(applies):
    x, y = (chainer.Variable(a) for a in _inputs(numpy.float32))
    z = x * y
    z.grad = numpy.ones_like(z.array)
    del applies[:]
    with chainer.using_config("debug", True):
        z.backward()
    assert applies == [basic_math.Mul, basic_math.Mul]


def test_a_numpy_kernel_override_is_used():
    calls = []

    def kernel(node, inputs):
        calls.append(type(node))
        node.retain_inputs((0, 1))  # as Mul.forward does
        return (inputs[0] * inputs[1],)

    plugin = types.ModuleType("fake_mul_kernel_plugin")
    plugin.register_kernels = plugins.hookimpl(
        lambda: {(basic_math.Mul, "numpy"): kernel}
    )
    plugins.register(plugin, name="mul_kernel")
    try:
        x, y = (chainer.Variable(a) for a in _inputs(numpy.float32))
        z = x * y
        assert calls == [basic_math.Mul]
        del calls[:]
        z.grad = numpy.ones_like(z.array)
        z.backward()
    finally:
        plugins.unregister("mul_kernel")
    assert calls == [basic_math.Mul, basic_math.Mul]
    numpy.testing.assert_array_equal(x.grad, y.array)
