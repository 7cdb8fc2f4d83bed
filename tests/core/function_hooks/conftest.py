import numpy
import pytest

import chainer


class _Square(chainer.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        (x,) = inputs
        return (x * x,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        return (2 * x * gy,)


@pytest.fixture
def square():
    """A differentiable y = x ** 2 made of one FunctionNode, class ``_Square``."""

    def apply(x):
        return _Square().apply((x,))[0]

    return apply


@pytest.fixture
def x():
    return chainer.Variable(numpy.array([1.0, 2.0, 3.0], dtype=numpy.float32))
