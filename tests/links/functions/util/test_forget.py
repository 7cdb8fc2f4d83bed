import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.activation import tanh
from chainer.functions.util import forget

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _tolerances(test):
    if test.dtype == numpy.float16:
        test.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
        test.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        test.check_double_backward_options = {"atol": 1e-2, "rtol": 5e-2}


def _f(a, b):
    return tanh.tanh(a) * b + a * a


@testing.parameterize(*testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestForget(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        a = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return a, b

    def forward(self, inputs, device):
        return (forget.forget(_f, *inputs),)

    def forward_expected(self, inputs):
        a, b = (x.astype(numpy.float64) for x in inputs)
        return ((numpy.tanh(a) * b + a * a).astype(self.dtype),)


def _two_outputs(a, b):
    return a * b, tanh.tanh(a)


@testing.parameterize(*testing.product({"dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestForgetTwoOutputs(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        a = numpy.random.uniform(-1, 1, (2, 3)).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, (2, 3)).astype(self.dtype)
        return a, b

    def forward(self, inputs, device):
        return forget.forget(_two_outputs, *inputs)

    def forward_expected(self, inputs):
        a, b = inputs
        return (a * b, numpy.tanh(a))


def _ignores_b(a, b):
    return a * a * 2


@testing.inject_backend_tests(None, [{}])
class TestForgetUnusedInput(testing.FunctionTestCase):
    def generate_inputs(self):
        a = numpy.random.uniform(-1, 1, (2, 3))
        b = numpy.random.uniform(-1, 1, (2, 3))
        return a, b

    def forward(self, inputs, device):
        return (forget.forget(_ignores_b, *inputs),)

    def forward_expected(self, inputs):
        a, _ = inputs
        return (a * a * 2,)


def test_internal_results_are_not_kept():
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    y = chainer.Variable(numpy.ones(3, numpy.float32))
    z = forget.forget(_f, x, y)
    assert isinstance(z.creator, forget.Forget)
    a, b = (node.get_variable() for node in z.creator.inputs)
    assert a is x
    assert b is y
    assert z.creator.inputs[0].creator is None


def test_func_is_recomputed_in_backward():
    calls = []

    def f(a):
        calls.append(chainer.config.in_recomputing)
        return a * a

    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float32))
    y = forget.forget(f, x)
    assert calls == [False]
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    assert calls == [False, True]
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])


def test_integer_arguments_pass_through():
    def pick(x, t):
        return x[numpy.arange(len(t.array)), t.array] * 3

    x = chainer.Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    t = numpy.array([2, 0], numpy.int32)
    y = forget.forget(pick, x, t)
    numpy.testing.assert_array_equal(y.array, [6.0, 9.0])
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 0, 3], [3, 0, 0]])


def test_identity_function():
    x = chainer.Variable(numpy.array([1.0, 2.0]))
    y = forget.forget(lambda a: a, x)
    y.grad = numpy.array([3.0, 4.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [3.0, 4.0])


def test_third_order_derivative():
    x = chainer.Variable(numpy.array([0.5, -2.0]))
    y = forget.forget(lambda a: a * a * a, x)
    (g1,) = chainer.grad([y], [x], [numpy.ones(2)], enable_double_backprop=True)
    (g2,) = chainer.grad([g1], [x], [numpy.ones(2)], enable_double_backprop=True)
    (g3,) = chainer.grad([g2], [x], [numpy.ones(2)])
    numpy.testing.assert_allclose(g1.array, 3 * x.array**2)
    numpy.testing.assert_allclose(g2.array, 6 * x.array)
    numpy.testing.assert_allclose(g3.array, [6.0, 6.0])


def test_non_callable_is_rejected():
    with pytest.raises(TypeError, match="callable"):
        forget.forget(1, numpy.ones(3, numpy.float32))


def test_non_variable_result_is_rejected():
    x = numpy.ones(3, numpy.float32)
    with pytest.raises(RuntimeError, match="is returned"):
        forget.forget(lambda a: a.array, x)
    with pytest.raises(RuntimeError, match="2nd element"):
        forget.forget(lambda a: (a, a.array), x)


def test_function_of_no_arguments():
    v = chainer.Variable(numpy.ones(2, numpy.float32))
    y = forget.forget(lambda: v * 2)
    numpy.testing.assert_array_equal(y.array, [2.0, 2.0])
    # Nothing to differentiate by; as in Chainer, the node is still recorded.
    assert isinstance(y.creator, forget.Forget)
    assert not y.requires_grad
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    assert v.grad is None
    with pytest.raises(RuntimeError, match="is returned"):
        forget.forget(lambda: 1)
    with pytest.raises(RuntimeError, match="11th element"):
        forget.forget(lambda: (v,) * 10 + (1,))
    with pytest.raises(TypeError, match="callable"):
        forget.forget(1)
