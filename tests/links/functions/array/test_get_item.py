import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]

_MASK = numpy.array([[True, False, True], [False, False, True]])


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (input shape, index)
                ((4, 3, 2), 1),
                ((4, 3, 2), -1),
                ((4, 3, 2), (slice(None, None, -2), 0)),
                ((4, 3, 2), (Ellipsis, None, 1)),
                ((4, 3, 2), (None, slice(1, 3), Ellipsis)),
                ((4, 3, 2), ()),
                ((), ()),
                ((), Ellipsis),
                ((), None),
                ((4, 3, 2), [0, 0, 3, 1]),  # duplicates: gradients add up
                ((4, 3, 2), numpy.array([[0, 2], [2, 2]])),
                ((4, 3, 2), (slice(None), [1, 1, 0], 1)),
                ((4, 3, 2), ([0, 3], slice(None), [1, 1])),  # split advanced axes
                ((4, 3, 2), ([[0], [3]], [1, 1, 2])),  # broadcast index arrays
                ((2, 3), _MASK),
                ((2, 3, 2), (_MASK, 1)),
                ((4, 3), numpy.array([True, False, True, True])),
                ((4, 3), numpy.array([], numpy.intp)),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestGetItem(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.index = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.get_item(x, self.index),)

    def forward_expected(self, inputs):
        (x,) = inputs
        index = self.index
        if isinstance(index, list):
            index = numpy.asarray(index)
        return (numpy.asarray(x[index]).copy(),)


def _grad_of(shape, index, gy):
    x = chainer.Variable(numpy.zeros(shape, numpy.float32))
    y = functions.get_item(x, index)
    y.grad = numpy.asarray(gy, numpy.float32)
    y.backward()
    return x.grad


def test_duplicate_indices_accumulate_exactly():
    gx = _grad_of((3,), [0, 0, 2, 0], [1, 2, 3, 4])
    numpy.testing.assert_array_equal(gx, [7, 0, 3])


def test_duplicates_across_two_index_arrays():
    gx = _grad_of((2, 2), ([1, 1, 0], [0, 0, 1]), [1, 10, 100])
    numpy.testing.assert_array_equal(gx, [[0, 100], [11, 0]])


def test_boolean_mask_gradient():
    gx = _grad_of((2, 3), _MASK, [1, 2, 3])
    numpy.testing.assert_array_equal(gx, [[1, 0, 2], [0, 0, 3]])


def test_variable_index():
    x = numpy.arange(4, dtype=numpy.float32)
    index = chainer.Variable(numpy.array([3, 1]))
    numpy.testing.assert_array_equal(functions.get_item(x, index).array, [3, 1])


def test_out_of_range():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(IndexError, match="x.shape"):
        functions.get_item(x, (2, 0))
