import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _space2depth(x, r):
    n, c, hr, wr = x.shape
    y = numpy.empty((n, c * r * r, hr // r, wr // r), x.dtype)
    for i in range(r):
        for j in range(r):
            for k in range(c):
                y[:, (i * r + j) * c + k] = x[:, k, i::r, j::r]
    return y


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (shape, r)
                ((2, 3, 4, 6), 2),
                ((1, 2, 6, 3), 3),
                ((2, 1, 2, 2), 1),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSpace2Depth(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.r = self.case

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.space2depth(x, self.r),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_space2depth(x, self.r),)


def test_inverse_of_depth2space():
    x = numpy.random.uniform(-1, 1, (2, 3, 4, 6)).astype(numpy.float32)
    y = functions.depth2space(functions.space2depth(x, 2), 2)
    numpy.testing.assert_array_equal(y.array, x)


@pytest.mark.parametrize(
    ("shape", "dtype"),
    [((1, 1, 3, 4), "f"), ((1, 1, 4, 3), "f"), ((1, 4, 4), "f"), ((1, 1, 4, 4), "i")],
)
def test_invalid(shape, dtype):
    x = numpy.zeros(shape, dtype)
    with pytest.raises(type_check.InvalidType):
        functions.space2depth(x, 2)


def test_invalid_r():
    x = numpy.zeros((1, 1, 4, 4), numpy.float32)
    with pytest.raises(ValueError, match="positive"):
        functions.space2depth(x, 0)
    with pytest.raises(TypeError, match="int"):
        functions.space2depth(x, 2.0)
