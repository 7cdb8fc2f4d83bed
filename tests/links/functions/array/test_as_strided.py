import itertools

import numpy
import pytest

import chainer
from chainer import functions
from chainer import gradient_check
from chainer import testing
from chainer.functions.array import as_strided

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _expected(x, shape, strides, offset):
    flat = x.ravel()
    y = numpy.empty(shape, x.dtype)
    for index in itertools.product(*[range(n) for n in shape]):
        pos = offset + sum(i * s for i, s in zip(index, strides, strict=True))
        y[index] = flat[pos]
    return y


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (input shape, output shape, strides, storage_offset)
                ((4,), (3, 2), (1, 1), 0),  # overlapping windows
                ((3, 4), (2, 2), (4, 1), 1),
                ((2, 3), (), (), 5),
                ((), (2,), (0,), None),
                ((6,), (3,), (-2,), 5),
                ((2, 3, 2), (3, 2, 2), (2, 4, 1), 1),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestAsStrided(testing.FunctionTestCase):
    # as_strided reads the memory of its input: a strided view of a larger
    # buffer would read that buffer.
    contiguous = "C"

    def setUp(self):
        self.in_shape, self.shape, self.strides, self.offset = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.in_shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.as_strided(x, self.shape, self.strides, self.offset),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_expected(x, self.shape, self.strides, self.offset or 0),)


def test_view_of_contiguous_input():
    x = numpy.arange(6, dtype=numpy.float32)
    y = functions.as_strided(x, (2, 2), (3, 1), 1)
    assert numpy.shares_memory(y.array, x)
    numpy.testing.assert_array_equal(y.array, [[1, 2], [4, 5]])


def test_overlap_gradient_is_summed():
    x = numpy.zeros(4, numpy.float32)
    v = chainer.Variable(x)
    y = as_strided.as_strided(v, (3, 2), (1, 1))
    y.grad = numpy.ones((3, 2), numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(v.grad, [1, 2, 2, 1])


def test_out_of_bounds():
    x = numpy.zeros(4, numpy.float32)
    with pytest.raises(ValueError, match="past the end"):
        functions.as_strided(x, (3, 2), (1, 2))


def test_stride_array_reads_the_storage_of_a_view():
    base = numpy.arange(8, dtype=numpy.float32)
    x = as_strided._stride_array(base, (3, 3), (-1, 2), 3)
    numpy.testing.assert_array_equal(x, [[3, 5, 7], [2, 4, 6], [1, 3, 5]])
    # Offsets count from the start of the viewed memory, not from x[0, 0].
    y = as_strided._stride_array(x, (3, 3), (1, 2), 0)
    numpy.testing.assert_array_equal(y, [[0, 2, 4], [1, 3, 5], [2, 4, 6]])
    reversed_rows = numpy.arange(12.0).reshape(3, 4)[::-1]
    numpy.testing.assert_array_equal(
        functions.as_strided(reversed_rows, (12,), (1,), 0).array, numpy.arange(12.0)
    )
    with pytest.raises(ValueError, match="before the start"):
        as_strided._stride_array(base, (3, 3), (-1, 2), 1)


def test_gradient_of_an_overlapping_input_is_shared():
    # x views its storage with overlap (storage 3 and 5 appear twice); each
    # of those elements gets half of its storage element's gradient.
    storage = numpy.arange(8, dtype=numpy.float64)
    v = chainer.Variable(as_strided._stride_array(storage, (3, 3), (-1, 2), 3))
    y = functions.as_strided(v, (3, 3), (1, 2), 0)
    y.grad = numpy.ones((3, 3))
    y.backward()
    numpy.testing.assert_array_equal(
        v.grad, [[0.5, 0.5, 0.0], [2.0, 2.0, 1.0], [1.0, 0.5, 0.5]]
    )


def test_integer_gradient_is_a_type_error():
    node = as_strided.AsStridedGrad(((4,), (1,), 0, 4), (4,), (-1,), 3)
    with pytest.raises(TypeError):
        node.apply((numpy.ones(4, numpy.int32),))


def test_double_backward_general_strides():
    storage = numpy.random.uniform(-1, 1, 8)

    def f(x):
        return functions.as_strided(x, (3, 3), (1, 2), 0)

    x = as_strided._stride_array(storage, (3, 3), (-1, 2), 3).copy()
    gy = numpy.random.uniform(-1, 1, (3, 3))
    ggx = numpy.random.uniform(-1, 1, (3, 3))
    gradient_check.check_double_backward(f, x, gy, ggx)


def test_before_start():
    x = numpy.zeros(4, numpy.float32)
    with pytest.raises(ValueError, match="before the start"):
        functions.as_strided(x, (2,), (-1,), 0)


def test_length_mismatch():
    x = numpy.zeros(4, numpy.float32)
    with pytest.raises(ValueError, match="differ in length"):
        functions.as_strided(x, (2, 2), (1,))
