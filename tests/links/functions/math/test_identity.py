import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import identity

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {"shapes": [((3, 2),), ((),), ((3, 2), (4,), ())], "dtype": _FLOATS}
    )
)
@testing.inject_backend_tests(None, [{}])
class TestIdentity(testing.FunctionTestCase):
    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes
        )

    def forward(self, inputs, device):
        y = identity.identity(*inputs)
        return y if isinstance(y, tuple) else (y,)

    def forward_expected(self, inputs):
        return tuple(x.copy() for x in inputs)


def test_one_input_gives_a_variable_several_a_tuple():
    x = numpy.ones(2, numpy.float32)
    assert isinstance(identity.identity(x), chainer.Variable)
    ys = identity.identity(x, x)
    assert isinstance(ys, tuple)
    assert len(ys) == 2


def test_gradient_flows_only_to_the_used_output():
    a = chainer.Variable(numpy.array([1.0, 2.0]))
    b = chainer.Variable(numpy.array([3.0]))
    ya, _ = identity.identity(a, b)
    ya.grad = numpy.array([0.5, -1.0])
    ya.backward()
    numpy.testing.assert_array_equal(a.grad, [0.5, -1.0])
    assert b.grad is None


def test_integer_inputs_pass_through():
    x = numpy.arange(3, dtype=numpy.int32)
    y = identity.identity(x)
    assert y.dtype == numpy.int32
    numpy.testing.assert_array_equal(y.array, x)


def test_no_input_is_an_error():
    with pytest.raises(TypeError, match="at least one input"):
        identity.identity()


def test_non_array_input_is_an_error():
    with pytest.raises(TypeError):
        identity.identity([1.0, 2.0])
