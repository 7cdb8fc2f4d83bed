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
                # (shape, indices_or_sections, axis)
                ((6, 4), 3, 0),
                ((6, 4), [1, 3], 0),
                ((2, 7, 3), [2, 5], 1),
                ((2, 7, 3), (2, 5), -2),
                ((2, 6), 2, -1),
                ((4,), [2], 0),
                ((4,), numpy.array([1, 3]), 0),
                ((3, 4), 1, 1),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSplitAxis(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.ios, self.axis = self.case

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return functions.split_axis(x, self.ios, self.axis)

    def forward_expected(self, inputs):
        (x,) = inputs
        return tuple(numpy.split(x, self.ios, self.axis))


def test_force_tuple():
    x = numpy.zeros((2, 3), numpy.float32)
    assert isinstance(functions.split_axis(x, 1, 0), tuple)
    y = functions.split_axis(x, 1, 0, force_tuple=False)
    assert isinstance(y, chainer.Variable)
    assert y.shape == (2, 3)
    assert len(functions.split_axis(x, 2, 0, force_tuple=False)) == 2


def test_empty_piece_and_unused_outputs():
    x = chainer.Variable(numpy.arange(8, dtype=numpy.float32).reshape(4, 2))
    ys = functions.split_axis(x, [0, 1, 3], 0)
    assert [y.shape for y in ys] == [(0, 2), (1, 2), (2, 2), (1, 2)]
    ys[2].grad = numpy.ones((2, 2), numpy.float32)
    ys[2].backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 0], [1, 1], [1, 1], [0, 0]])


@pytest.mark.parametrize(
    ("ios", "axis"), [(4, 1), ([1, 4], 1), (2, 2), (2, -3), ([1], 2)]
)
def test_invalid(ios, axis):
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.split_axis(x, ios, axis)


def test_invalid_sections():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(ValueError, match="positive"):
        functions.split_axis(x, 0, 0)
    with pytest.raises(TypeError, match="indices_or_sections"):
        functions.split_axis(x, 1.5, 0)


def test_unsorted_indices_in_debug_mode():
    x = numpy.zeros((2, 3, 4), numpy.float32)
    with chainer.using_config("debug", True), pytest.raises(ValueError, match="sorted"):
        functions.split_axis(x, [2, 1], 1)
    # Outside debug mode they split as numpy.split does.
    ys = functions.split_axis(x, [2, 1], 1)
    assert [y.shape for y in ys] == [(2, 2, 4), (2, 0, 4), (2, 2, 4)]
