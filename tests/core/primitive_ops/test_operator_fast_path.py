"""Variable's arithmetic operators skip apply's generic bookkeeping.

``function_node._apply_checked_pair`` (``x op y`` on two Variables) and
``_apply_unchecked`` (``x op c`` with a scalar) run the node's forward and
record the graph themselves when both arrays are NumPy arrays of one dtype and
shape and no hook, debug mode or kernel override is active. What they return
must be what ``apply`` returns: same values, dtype, ``requires_grad``, rank,
creator, retained inputs, and the same errors for bad operands.
"""

import operator

import numpy
import pytest

import chainer
from chainer import function_hook
from chainer import function_node
from chainer.primitive_ops import basic_math


class _NoOpHook(function_hook.FunctionHook):
    name = "noop"


_BINARY = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
}
_WITH_CONSTANT = {
    "add": lambda x: x + 2.0,
    "radd": lambda x: 2.0 + x,
    "sub": lambda x: x - 2,
    "rsub": lambda x: 2 - x,
    "mul": lambda x: x * 0.5,
    "rmul": lambda x: numpy.float64(0.5) * x,
    "truediv": lambda x: x / 4.0,
    "rtruediv": lambda x: 2.0 / x,
}


def _pair(dtype, shape=(3, 4)):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    y = rng.uniform(0.5, 2, shape).astype(dtype)
    return chainer.Variable(x), chainer.Variable(y)


def _describe(v):
    node = v.creator_node
    return (
        v.array.dtype,
        v.array.shape,
        v.requires_grad,
        v.rank,
        type(node),
        [n.rank for n in node.inputs],
        [n.data is not None for n in node.inputs],
    )


def _run(f, variables, hooked):
    if hooked:  # a function hook sends every node through apply
        with _NoOpHook():
            return f(*variables)
    return f(*variables)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("op", sorted(_BINARY))
def test_binary_operator_matches_apply(op, dtype):
    results = []
    for hooked in (False, True):
        x, y = _pair(dtype)
        h = x * 1.0  # an input of rank 1, the other of rank 0
        z = _run(_BINARY[op], (h, y), hooked)
        z.grad = numpy.ones_like(z.array)
        z.backward()
        results.append((_describe(z), z.array, x.grad, y.grad))
    (desc, z, gx, gy), (desc_ref, z_ref, gx_ref, gy_ref) = results
    assert desc == desc_ref
    assert desc[3] == 2
    numpy.testing.assert_array_equal(z, z_ref)
    numpy.testing.assert_array_equal(gx, gx_ref)
    numpy.testing.assert_array_equal(gy, gy_ref)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("op", sorted(_WITH_CONSTANT))
def test_operator_with_constant_matches_apply(op, dtype):
    results = []
    for hooked in (False, True):
        x, _ = _pair(dtype)
        z = _run(_WITH_CONSTANT[op], (x,), hooked)
        z.grad = numpy.ones_like(z.array)
        z.backward()
        results.append((_describe(z), z.array, x.grad))
    (desc, z, gx), (desc_ref, z_ref, gx_ref) = results
    assert desc == desc_ref
    assert desc[0] == dtype
    numpy.testing.assert_array_equal(z, z_ref)
    numpy.testing.assert_array_equal(gx, gx_ref)


def test_the_fast_path_skips_apply(monkeypatch):
    applied = []
    original = function_node.FunctionNode.apply

    def apply(self, inputs):
        applied.append(type(self))
        return original(self, inputs)

    monkeypatch.setattr(function_node.FunctionNode, "apply", apply)
    x, y = _pair(numpy.float32)
    z = (x * y + 1.0) * y
    assert applied == []
    # Broadcasting operands and debug mode go through apply.
    row = chainer.Variable(y.array[:1])
    z = x * row
    assert applied == [basic_math.Mul]
    with chainer.using_config("debug", True):
        z = z * 2.0
    assert applied[-1] is basic_math.MulConstant


def test_inputs_without_gradient():
    x, y = _pair(numpy.float32)
    c = chainer.Variable(y.array, requires_grad=False)
    z = c * c
    assert not z.requires_grad
    assert not z.creator_node.outputs[0]().requires_grad
    z = c - 3.0
    assert not z.requires_grad
    z = x * c
    assert z.requires_grad
    z.grad = numpy.ones_like(z.array)
    z.backward()
    numpy.testing.assert_array_equal(x.grad, c.array)
    assert c.grad is None


def test_no_backprop_mode_records_nothing():
    x, y = _pair(numpy.float64)
    with chainer.no_backprop_mode():
        z = x * y
        w = z + 1.0
    assert z.creator_node is None
    assert w.creator_node is None
    assert z.requires_grad
    assert w.requires_grad
    numpy.testing.assert_array_equal(w.array, x.array * y.array + 1.0)


def test_zero_dimensional_operands_give_arrays():
    x = chainer.Variable(numpy.full((), 3.0, numpy.float32))
    y = chainer.Variable(numpy.full((), 2.0, numpy.float32))
    z = x * y
    assert type(z.array) is numpy.ndarray
    assert z.array.shape == ()
    z = x * 2.0
    assert type(z.array) is numpy.ndarray
    assert z.array.dtype == numpy.float32
    z.backward()
    assert x.grad == 2.0


def test_same_variable_on_both_sides():
    x, _ = _pair(numpy.float32)
    z = x * x
    z.grad = numpy.ones_like(z.array)
    z.backward()
    numpy.testing.assert_allclose(x.grad, 2 * x.array, rtol=1e-6)


def test_mismatched_dtypes_raise_invalid_type():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    y = chainer.Variable(numpy.ones((2, 3), numpy.float64))
    with pytest.raises(chainer.utils.type_check.InvalidType, match="dtype"):
        x * y


def test_hooks_see_the_operators():
    calls = []

    class Hook(function_hook.FunctionHook):
        name = "record"

        def forward_preprocess(self, function, in_data):
            calls.append(function.label)

    x, y = _pair(numpy.float32)
    with Hook():
        x * y
        x + 1.0
    assert calls == ["_ * _", "_ + 1.0"]
