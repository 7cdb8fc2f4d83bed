import numpy
import pytest

import chainer
from chainer import Variable


class MulAdd(chainer.Function):
    """Old-style: y = x * w + b."""

    def forward_cpu(self, inputs):
        x, w, b = inputs
        return (x * w + b,)

    def backward_cpu(self, inputs, grad_outputs):
        x, w, _b = inputs
        (gy,) = grad_outputs
        return gy * w, gy * x, gy


class TwoOut(chainer.Function):
    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((1,))
        return x * 2, x * 3

    def backward(self, inputs, grad_outputs):
        assert self.output_data[1] is not None
        g0, g1 = grad_outputs
        gx = 0
        if g0 is not None:
            gx = gx + 2 * g0
        if g1 is not None:
            gx = gx + 3 * g1
        return (gx,)


class DropsInput(chainer.Function):
    def forward(self, inputs):
        self.retain_inputs((1,))
        return (inputs[0] * inputs[1],)

    def backward(self, inputs, grad_outputs):
        assert inputs[0] is None
        return grad_outputs[0] * inputs[1], None


def _x(*v):
    return Variable(numpy.array(v, numpy.float32))


def test_old_style_forward_backward():
    x, w, b = _x(1.0, 2.0), _x(3.0, 4.0), _x(0.5, 0.5)
    f = MulAdd()
    y = f(x, w, b)
    assert isinstance(y, Variable)
    numpy.testing.assert_allclose(y.array, [3.5, 8.5])
    assert y.creator is f
    assert isinstance(y.creator_node, chainer.FunctionAdapter)
    assert y.creator_node.function is f
    assert f.label == "MulAdd"
    assert f.rank == 0
    assert len(f.inputs) == 3
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [3.0, 4.0])
    numpy.testing.assert_allclose(w.grad, [1.0, 2.0])
    numpy.testing.assert_allclose(b.grad, [1.0, 1.0])


def test_multiple_outputs_and_retained_output():
    x = _x(1.0)
    y0, y1 = TwoOut()(x)
    (y0 + y1).backward()
    numpy.testing.assert_allclose(x.grad, [5.0])


def test_missing_output_grad_is_none():
    x = _x(1.0)
    y0, _ = TwoOut()(x)
    y0.backward()
    numpy.testing.assert_allclose(x.grad, [2.0])


def test_retain_inputs_passes_none():
    a, b = _x(2.0), _x(3.0)
    DropsInput()(a, b).backward()
    numpy.testing.assert_allclose(a.grad, [3.0])
    assert b.grad is None


def test_retain_inputs_releases_the_others_from_the_graph():
    a, b = _x(2.0), _x(3.0)
    nodes = [a.node, b.node]
    y = DropsInput()(a, b)
    # Only the retained input keeps its array in the graph.
    assert nodes[0].data is None
    assert nodes[1].data is b.array
    # A later call decides again: without retain_inputs every input is kept.
    f = DropsInput()
    f(a, b)
    f.forward = lambda inputs: (inputs[0] * inputs[1],)
    c, d = _x(1.0), _x(1.0)
    f(c, d)
    assert c.node.data is c.array
    assert d.node.data is d.array
    y.backward()


def test_output_rank_follows_chainer_rank_attribute():
    x1, x2 = _x(1.0), _x(2.0)
    x1.node._rank = 1
    x2.node._rank = 3
    assert x2.rank == 3
    y = MulAdd()(x1, x2, _x(0.0))
    assert y.rank == 4
    assert y.node._rank == 4


def test_gradient_check():
    x = numpy.random.uniform(-1, 1, (3,))
    w = numpy.random.uniform(-1, 1, (3,))
    b = numpy.random.uniform(-1, 1, (3,))
    gy = numpy.random.uniform(-1, 1, (3,))
    chainer.gradient_check.check_backward(MulAdd(), (x, w, b), gy)


def test_not_implemented_forward_is_clear():
    class Nothing(chainer.Function):
        pass

    with pytest.raises(TypeError, match="does not implement forward"):
        Nothing()(_x(1.0))


def test_forward_must_return_tuple():
    class Bad(chainer.Function):
        def forward(self, inputs):
            return inputs[0]

    with pytest.raises(TypeError, match="tuple"):
        Bad()(_x(1.0))


def test_backward_wrong_count():
    class Bad(chainer.Function):
        def forward(self, inputs):
            return (inputs[0] * 1,)

        def backward(self, inputs, grad_outputs):
            return (grad_outputs[0], grad_outputs[0])

    y = Bad()(_x(1.0))
    with pytest.raises(ValueError, match="2 gradients for 1 inputs"):
        y.backward()


def test_hooks_on_function():
    class Hook(chainer.FunctionHook):
        name = "h"

        def __init__(self):
            self.n = 0

        def backward_preprocess(self, function, in_data, out_grad):
            self.n += 1

    x = _x(1.0)
    f = MulAdd()
    y = f(x, _x(2.0), _x(0.0))
    h = Hook()
    f.add_hook(h)
    assert "h" in f.local_function_hooks
    y.backward()
    assert h.n == 1
    f.delete_hook("h")
