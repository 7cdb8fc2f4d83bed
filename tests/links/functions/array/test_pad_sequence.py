import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "lengths": [[3, 1, 2], [2], [0, 2]],
            "inner": [(), (2, 3)],
            "length": [None, 4],
            "padding": [0, -1.5],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestPadSequence(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, (n, *self.inner)).astype(self.dtype)
            for n in self.lengths
        )

    def forward(self, inputs, device):
        return (functions.pad_sequence(inputs, self.length, self.padding),)

    def forward_expected(self, inputs):
        length = self.length or max(self.lengths)
        y = numpy.full(
            (len(inputs), length, *self.inner), self.padding, dtype=self.dtype
        )
        for i, x in enumerate(inputs):
            y[i, : len(x)] = x
        return (y,)


def test_integer_sequences():
    xs = [numpy.array([1, 2, 3], numpy.int32), numpy.array([4], numpy.int32)]
    y = functions.pad_sequence(xs, padding=-1)
    assert y.dtype == numpy.int32
    numpy.testing.assert_array_equal(y.array, [[1, 2, 3], [4, -1, -1]])


@pytest.mark.parametrize(
    ("shapes", "dtypes", "length"),
    [
        ([(3,), (2,)], ["f", "f"], 2),
        ([(3, 2), (2, 3)], ["f", "f"], None),
        ([(3,), (2,)], ["f", "d"], None),
        ([(), ()], ["f", "f"], None),
        ([], [], None),
    ],
)
def test_invalid(shapes, dtypes, length):
    xs = [numpy.zeros(s, d) for s, d in zip(shapes, dtypes, strict=True)]
    with pytest.raises(type_check.InvalidType):
        functions.pad_sequence(xs, length)


def test_padding_not_scalar():
    xs = [numpy.zeros(3, numpy.float32)]
    with pytest.raises(ValueError, match="padding must be a scalar"):
        functions.pad_sequence(xs, padding=[0])
