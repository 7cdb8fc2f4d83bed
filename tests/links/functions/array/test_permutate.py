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
                ((4,), 0),
                ((3, 4), 0),
                ((3, 4), 1),
                ((2, 3, 4), -1),
                ((2, 1, 4), -3),
            ],
            "inv": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestPermutate(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.case
        n = self.shape[self.axis]
        self.indices = numpy.random.permutation(n).astype(numpy.int32)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        indices = device.send(self.indices)
        return (functions.permutate(x, indices, self.axis, self.inv),)

    def forward_expected(self, inputs):
        (x,) = inputs
        x = numpy.moveaxis(x, self.axis, 0)
        y = numpy.empty_like(x)
        for i, j in enumerate(self.indices):
            if self.inv:
                y[j] = x[i]
            else:
                y[i] = x[j]
        return (numpy.moveaxis(y, 0, self.axis),)


def test_indices_variable_and_list():
    x = numpy.arange(6, dtype=numpy.float32).reshape(3, 2)
    expected = x[[2, 0, 1]]
    indices = chainer.Variable(numpy.array([2, 0, 1], numpy.int32))
    numpy.testing.assert_array_equal(functions.permutate(x, indices).array, expected)
    numpy.testing.assert_array_equal(functions.permutate(x, [2, 0, 1]).array, expected)


def test_length_mismatch():
    x = numpy.zeros((3, 2), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.permutate(x, numpy.array([1, 0], numpy.int32))


def test_axis_out_of_range():
    x = numpy.zeros((3, 2), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.permutate(x, numpy.array([1, 0], numpy.int32), axis=2)


def test_indices_type():
    x = numpy.zeros((2,), numpy.float32)
    with pytest.raises(TypeError, match="integer array"):
        functions.permutate(x, numpy.array([1.0, 0.0], numpy.float32))
    with pytest.raises(ValueError, match="1-d"):
        functions.permutate(x, numpy.array([[1, 0]], numpy.int32))


@pytest.mark.parametrize("indices", [[0, 0, 1], [0, 3, 1], [-1, 0, 1]])
def test_not_permutation_in_debug_mode(indices):
    x = numpy.zeros((3,), numpy.float32)
    indices = numpy.array(indices, numpy.int32)
    with chainer.using_config("debug", True), pytest.raises(ValueError):
        functions.permutate(x, indices)
