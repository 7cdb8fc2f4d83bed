import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import basic_math
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _tolerances(test):
    if test.dtype == numpy.float16:
        test.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
        test.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        test.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}


@testing.parameterize(*testing.product({"shape": [(3, 2), ()], "dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestAbsolute(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        x = numpy.random.uniform(0.2, 1.0, self.shape)
        # Signs are random, magnitudes stay away from the kink at 0.
        x *= numpy.random.choice([-1.0, 1.0], self.shape)
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        return (basic_math.absolute(inputs[0]),)

    def forward_expected(self, inputs):
        return (numpy.abs(inputs[0]),)


@testing.parameterize(
    *testing.product(
        {
            "shapes": [
                ((3, 2), (3, 2)),
                ((), ()),
                ((3, 2), (2,)),
                ((3, 2), (3, 2), (3, 2)),
                ((1, 2), (3, 1), ()),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestAdd(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes
        )

    def forward(self, inputs, device):
        return (basic_math.add(*inputs),)

    def forward_expected(self, inputs):
        y = inputs[0]
        for x in inputs[1:]:
            y = y + x
        return (numpy.asarray(y).astype(self.dtype),)


def test_absolute_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        basic_math.absolute(numpy.arange(3, dtype=numpy.int32))


def test_add_mixed_dtypes_are_invalid():
    x = numpy.ones(3, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        basic_math.add(x, x.astype(numpy.float64))


def test_add_of_one_input_returns_a_variable():
    x = numpy.ones(3, numpy.float32)
    y = basic_math.add(x)
    assert isinstance(y, chainer.Variable)
    numpy.testing.assert_array_equal(y.array, x)


def test_nodes_are_the_ones_variable_operators_use():
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    assert isinstance((x + x).creator, basic_math.Add)
    assert isinstance(abs(x).creator, basic_math.Absolute)
    assert isinstance(basic_math.absolute(x).creator, basic_math.Absolute)
