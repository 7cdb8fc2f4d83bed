"""chainer._backprop_utils: one backprop step with Chainer's gradient lists."""

import numpy
import pytest

import chainer
from chainer import _backprop_utils


class _Scale(chainer.FunctionNode):
    """y = a * x0 + x1 (x1 optional); backward returns one gradient per input."""

    def __init__(self, a, n_inputs=2):
        self.a = a
        self.n_inputs = n_inputs

    def forward(self, inputs):
        y = self.a * inputs[0]
        if self.n_inputs == 2:
            y = y + inputs[1]
        return (y,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (gy * self.a, gy)[: self.n_inputs]


class _Accumulating(_Scale):
    calls = 0

    def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
        type(self).calls += 1
        gxs = self.backward(indexes, grad_outputs)
        return tuple(
            gx if g is None else gx + g
            for gx, g in zip((gxs[i] for i in indexes), grad_inputs, strict=True)
        )


def _setup(cls=_Scale):
    x0 = chainer.Variable(numpy.arange(3, dtype=numpy.float32))
    x1 = chainer.Variable(numpy.ones(3, numpy.float32))
    func = cls(2.0)
    func.apply((x0, x1))
    gy = chainer.Variable(numpy.full(3, 10.0, numpy.float32))
    return func, (gy,)


@pytest.mark.parametrize("cls", [_Scale, _Accumulating])
@pytest.mark.parametrize("is_debug", [False, True])
def test_backprop_step_accumulates_into_lists(cls, is_debug):
    func, grad_outputs = _setup(cls)
    prior = chainer.Variable(numpy.ones(3, numpy.float32))
    grad_inputs = {func.inputs[0]: [prior], func.inputs[1]: []}
    _backprop_utils.backprop_step(func, (0, 1), grad_outputs, grad_inputs, is_debug)
    g0 = grad_inputs[func.inputs[0]]
    g1 = grad_inputs[func.inputs[1]]
    assert len(g0) == 1  # eager sum
    assert len(g1) == 1
    numpy.testing.assert_array_equal(g0[0].array, numpy.full(3, 21.0))
    numpy.testing.assert_array_equal(g1[0].array, numpy.full(3, 10.0))


def test_backprop_step_calls_backward_accumulate_when_overridden():
    _Accumulating.calls = 0
    func, grad_outputs = _setup(_Accumulating)
    grad_inputs = {func.inputs[0]: [], func.inputs[1]: []}
    _backprop_utils.backprop_step(func, (1,), grad_outputs, grad_inputs, False)
    assert _Accumulating.calls == 1
    assert grad_inputs[func.inputs[0]] == []
    numpy.testing.assert_array_equal(grad_inputs[func.inputs[1]][0].array, 10.0)


def test_lazy_grad_sum_keeps_every_gradient():
    func, grad_outputs = _setup()
    func.lazy_grad_sum = True
    prior = chainer.Variable(numpy.ones(3, numpy.float32))
    grad_inputs = {func.inputs[0]: [prior], func.inputs[1]: []}
    _backprop_utils.backprop_step(func, (0, 1), grad_outputs, grad_inputs, False)
    g0 = grad_inputs[func.inputs[0]]
    assert len(g0) == 2
    total = _backprop_utils._reduce(g0)
    assert len(g0) == 1
    assert g0[0] is total
    numpy.testing.assert_array_equal(total.array, numpy.full(3, 21.0))
    assert _backprop_utils._reduce([]) is None


def test_debug_checks_gradient_shapes_and_counts():
    func, grad_outputs = _setup()
    func.backward = lambda indexes, gys: (gys[0][:2], gys[0])
    grad_inputs = {func.inputs[0]: [], func.inputs[1]: []}
    with pytest.raises(ValueError, match="shape of gradients"):
        _backprop_utils.backprop_step(func, (0, 1), grad_outputs, grad_inputs, True)
    func.backward = lambda indexes, gys: (gys[0],) * 3
    with pytest.raises(ValueError, match="number of gradients"):
        _backprop_utils.backprop_step(func, (0, 1), grad_outputs, grad_inputs, False)
    func.backward = lambda indexes, gys: (gys[0].array, None)
    with pytest.raises(ValueError, match="type of gradients"):
        _backprop_utils.backprop_step(func, (0, 1), grad_outputs, grad_inputs, True)


def test_debug_detects_nan():
    func, _ = _setup()
    gy = chainer.Variable(numpy.full(3, numpy.nan, numpy.float32))
    grad_inputs = {func.inputs[0]: [], func.inputs[1]: []}
    with pytest.raises(RuntimeError, match="NaN is detected"):
        _backprop_utils.backprop_step(func, (0,), (gy,), grad_inputs, True)


def test_errors_get_the_stack_of_the_function_in_debug_mode():
    with chainer.using_config("debug", True):
        func, grad_outputs = _setup()

    def fail(indexes, gys):
        raise ValueError("boom")

    func.backward = fail
    grad_inputs = {func.inputs[0]: [], func.inputs[1]: []}
    with pytest.raises(ValueError, match="boom") as info:
        _backprop_utils.backprop_step(func, (0,), grad_outputs, grad_inputs, False)
    if func.stack is not None:
        assert "Stacktrace of the function is below" in str(info.value)


def test_grad_table():
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    x.grad = numpy.full(2, 3.0, numpy.float32)
    table = _backprop_utils.GradTable(accumulate_grad_inputs=True)
    node = x.node
    assert table.get_as_list(node)[0].array.tolist() == [3.0, 3.0]
    table.accumulate(node, chainer.Variable(numpy.ones(2, numpy.float32)))
    numpy.testing.assert_array_equal(table.pop(node).array, [4.0, 4.0])
    numpy.testing.assert_array_equal(table.pop(node).array, [3.0, 3.0])
    plain = _backprop_utils.GradTable()
    plain[node] = None
    plain.assert_no_grads()
    assert plain.pop(None) is None
