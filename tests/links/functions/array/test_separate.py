import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (shape, axis)
                ((2, 3, 4), 0),
                ((2, 3, 4), 1),
                ((2, 3, 4), 2),
                ((2, 3, 4), -1),
                ((3,), 0),
                ((1, 2), -2),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSeparate(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.case

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return functions.separate(x, self.axis)

    def forward_expected(self, inputs):
        (x,) = inputs
        n = x.shape[self.axis]
        return tuple(numpy.asarray(numpy.take(x, i, axis=self.axis)) for i in range(n))


def test_default_axis():
    x = numpy.arange(6, dtype=numpy.float32).reshape(3, 2)
    ys = functions.separate(x)
    assert len(ys) == 3
    numpy.testing.assert_array_equal(ys[1].array, [2, 3])


def test_some_outputs_unused():
    x = chainer.Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    ys = functions.separate(x, axis=1)
    ys[1].grad = numpy.array([1, 2], numpy.float32)
    ys[1].backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 1, 0], [0, 2, 0]])


@pytest.mark.parametrize("axis", [3, -4])
def test_invalid_axis(axis):
    x = numpy.zeros((2, 3, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.separate(x, axis)


def test_zero_dim_input():
    with pytest.raises(type_check.InvalidType):
        functions.separate(numpy.zeros((), numpy.float32))
