"""Shared fixture for optimizer hook tests: a link with two parameters."""

import numpy
import pytest

import chainer


class _TwoParams(chainer.Link):
    def __init__(self, dtype):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.array([[1.0, -2.0], [0.5, 0.0]], dtype))
            self.b = chainer.Parameter(numpy.array([3.0, -4.0], dtype))


@pytest.fixture
def make_model():
    """Returns ``make(dtype, w_grad, b_grad)`` building a model with grads set."""

    def make(dtype=numpy.float32, w_grad=None, b_grad=None):
        model = _TwoParams(dtype)
        if w_grad is not None:
            model.w.grad = numpy.array(w_grad, dtype=dtype)
        if b_grad is not None:
            model.b.grad = numpy.array(b_grad, dtype=dtype)
        return model

    return make
