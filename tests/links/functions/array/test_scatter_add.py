import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]
_MASK = numpy.array([[True, False, True, False], [False] * 4, [True] * 4])


def _indexed_shape(shape, slices):
    return numpy.empty(shape)[slices].shape


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (a shape, slices)
                ((3, 4), slice(None, 2)),
                ((3, 4), [0, 2, 0]),
                ((3, 4), (slice(None), [1, 1, 3])),
                ((3, 4), 1),
                ((3, 4), (Ellipsis, None, 1)),
                ((3, 4), _MASK),
                ((3, 4), (numpy.array([0, 0, 2]), numpy.array([1, 1, 0]))),
                ((2, 3, 4), (1, slice(1, None), [0, 3])),
                ((), Ellipsis),
                ((), ()),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestScatterAdd(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.slices = self.case
        if isinstance(self.slices, list):
            self.np_slices = numpy.asarray(self.slices)
        else:
            self.np_slices = self.slices
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        a = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        b_shape = _indexed_shape(self.shape, self.np_slices)
        b = numpy.random.uniform(-1, 1, b_shape).astype(self.dtype)
        return a, b

    def forward(self, inputs, device):
        a, b = inputs
        return (functions.scatter_add(a, self.slices, b),)

    def forward_expected(self, inputs):
        a, b = inputs
        y = a.copy()
        numpy.add.at(y, self.np_slices, b)
        return (y,)


def test_slices_variable():
    a = numpy.zeros((3,), numpy.float32)
    index = chainer.Variable(numpy.array([2, 2], numpy.int32))
    b = numpy.array([1, 2], numpy.float32)
    y = functions.scatter_add(a, index, b)
    numpy.testing.assert_array_equal(y.array, [0, 0, 3])


def test_input_unchanged():
    a = numpy.zeros((3,), numpy.float32)
    functions.scatter_add(a, slice(None), numpy.ones(3, numpy.float32))
    assert not a.any()


@pytest.mark.parametrize(
    ("a", "slices", "b"),
    [
        (numpy.zeros((3, 4), "f"), 0, numpy.zeros((4,), "d")),
        (numpy.zeros((3,), "f"), (0, 1), numpy.zeros((), "f")),
    ],
)
def test_invalid(a, slices, b):
    with pytest.raises(type_check.InvalidType):
        functions.scatter_add(a, slices, b)


@pytest.mark.parametrize(
    ("slices", "b_shape"), [(slice(None, 2), (4,)), ([0, 1], (2, 1))]
)
def test_b_is_not_broadcast(slices, b_shape):
    a = numpy.zeros((3, 4), "f")
    with pytest.raises(ValueError, match="broadcast"):
        functions.scatter_add(a, slices, numpy.zeros(b_shape, "f"))


def test_two_ellipses():
    a = numpy.zeros((3, 4), numpy.float32)
    with pytest.raises(ValueError, match="ellipsis"):
        functions.scatter_add(a, (Ellipsis, Ellipsis), a)
