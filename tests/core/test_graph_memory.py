"""The graph holds no cycles that keep arrays alive."""

import gc
import tracemalloc
import weakref

import numpy
import pytest

import chainer
from chainer import Variable
from chainer import primitive_ops


class _Holder:
    pass


def _array_ref(var):
    return weakref.ref(var.array)


def test_output_array_released_without_gc():
    gc.disable()
    try:
        x = Variable(numpy.ones(100, numpy.float32))
        y = x * 2 + 1
        ref = _array_ref(y)
        del y
        assert ref() is None  # freed by refcounting alone: no cycle
    finally:
        gc.enable()


def test_retained_inputs_released_when_graph_dropped():
    gc.disable()
    try:
        x = Variable(numpy.ones(100, numpy.float32))
        h = x * x  # Mul retains both inputs
        z = h * h
        ref_h = _array_ref(h)
        del h
        assert ref_h() is not None  # still needed by z's graph
        del z
        assert ref_h() is None
    finally:
        gc.enable()


def test_everything_released_after_backward():
    gc.disable()
    try:
        x = Variable(numpy.ones(10, numpy.float32))
        loss = primitive_ops.sum((x * 3) ** 2)
        loss.backward()
        refs = [weakref.ref(loss.creator_node)]
        del loss
        assert all(r() is None for r in refs)
    finally:
        gc.enable()


def test_old_style_function_no_cycle():
    class Double(chainer.Function):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward(self, inputs, grad_outputs):
            return (grad_outputs[0] * 2,)

    gc.disable()
    try:
        x = Variable(numpy.ones(10, numpy.float32))
        y = Double()(x)
        ref = _array_ref(y)
        node_ref = weakref.ref(y.creator_node)
        del y
        assert ref() is None
        assert node_ref() is None
    finally:
        gc.enable()


@pytest.mark.slow
def test_training_loop_does_not_grow():
    w = Variable(numpy.random.rand(50, 50).astype(numpy.float32))
    x = numpy.random.rand(8, 50).astype(numpy.float32)

    def step():
        h = Variable(x) @ w
        loss = primitive_ops.sum(h * h)
        w.cleargrad()
        loss.backward()
        w.array -= 1e-6 * w.grad

    for _ in range(200):
        step()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(10000):
        step()
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert after - before < 256 * 1024, (before, after)
