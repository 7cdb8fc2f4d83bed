import numpy

import chainer
from chainer.functions.theano import theano_function


def _forward(a, b):
    return [a * b, a + b]


def _backward(a, b, g_prod, g_sum):
    return [g_prod * b + g_sum, g_prod * a + g_sum]


def test_forward_and_backward_run_the_given_functions():
    a = chainer.Variable(numpy.array([1.0, 2.0]))
    b = chainer.Variable(numpy.array([3.0, 5.0]))
    prod, total = theano_function.theano_function(_forward, _backward, a, b)
    numpy.testing.assert_array_equal(prod.array, [3.0, 10.0])
    numpy.testing.assert_array_equal(total.array, [4.0, 7.0])
    chainer.functions.sum(prod * 2 + total).backward()
    numpy.testing.assert_array_equal(a.grad, [7.0, 11.0])
    numpy.testing.assert_array_equal(b.grad, [3.0, 5.0])


def test_unused_output_gets_a_zero_gradient():
    a = chainer.Variable(numpy.array([1.0, 2.0]))
    b = chainer.Variable(numpy.array([3.0, 5.0]))
    prod, _ = theano_function.theano_function(_forward, _backward, a, b)
    prod.grad = numpy.ones(2)
    prod.backward()
    numpy.testing.assert_array_equal(a.grad, [3.0, 5.0])


def test_one_output_is_a_variable():
    y = theano_function.theano_function(
        lambda x: [x * 2], lambda x, gy: [gy * 2], numpy.ones(3, numpy.float32)
    )
    assert isinstance(y, chainer.Variable)
    assert y.dtype == numpy.float32
