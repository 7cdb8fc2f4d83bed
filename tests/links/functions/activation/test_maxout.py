import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.activation import maxout
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _maxout(x, pool_size, axis):
    axis %= x.ndim
    shape = (*x.shape[:axis], x.shape[axis] // pool_size, pool_size)
    return x.reshape(shape + x.shape[axis + 1 :]).max(axis=axis + 1)


@testing.parameterize(
    *testing.product(
        {
            "case": [
                ((2, 6), 2, 1),
                ((2, 6), 3, 1),
                ((2, 6), 6, -1),
                ((4, 3), 2, 0),
                ((2, 4, 3), 2, 1),
                ((2, 3, 6), 3, 2),
                ((6,), 3, 0),
                ((2, 4), 1, 1),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestMaxout(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.pool_size, self.axis = self.case
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        # Distinct values far apart, so the winner of each pool is clear.
        size = int(numpy.prod(self.shape))
        x = numpy.random.permutation(size).reshape(self.shape) * 0.1 - size * 0.05
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (maxout.maxout(x, self.pool_size, self.axis),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_maxout(x, self.pool_size, self.axis),)


def test_gradient_goes_to_the_maxima():
    x = chainer.Variable(numpy.array([[1.0, 5.0, 3.0, 2.0, 4.0, 4.0]], numpy.float32))
    y = maxout.maxout(x, 2)
    numpy.testing.assert_array_equal(y.array, [[5.0, 3.0, 4.0]])
    y.grad = numpy.array([[10.0, 20.0, 30.0]], numpy.float32)
    y.backward()
    # As in Chainer, tied maxima all get the full gradient.
    numpy.testing.assert_array_equal(x.grad, [[0.0, 10.0, 20.0, 0.0, 30.0, 30.0]])


def test_indivisible_axis_is_invalid():
    with pytest.raises(type_check.InvalidType, match="pool_size"):
        maxout.maxout(numpy.zeros((2, 5), numpy.float32), 2)


def test_axis_out_of_range_is_invalid():
    with pytest.raises(type_check.InvalidType):
        maxout.maxout(numpy.zeros((2, 4), numpy.float32), 2, axis=2)


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        maxout.maxout(numpy.zeros((2, 4), numpy.int32), 2)


@pytest.mark.parametrize("pool_size", [0, -2])
def test_non_positive_pool_size_is_rejected(pool_size):
    with pytest.raises(ValueError, match="positive"):
        maxout.maxout(numpy.zeros((2, 4), numpy.float32), pool_size)
