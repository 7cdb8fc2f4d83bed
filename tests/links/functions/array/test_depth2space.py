import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _expected(x, r):
    n, c, h, w = x.shape
    oc = c // (r * r)
    y = numpy.empty((n, oc, h * r, w * r), x.dtype)
    for di in range(r):
        for dj in range(r):
            for k in range(oc):
                y[:, k, di::r, dj::r] = x[:, (di * r + dj) * oc + k]
    return y


@testing.parameterize(
    *testing.product(
        {
            "case": [((1, 4, 2, 3), 2), ((2, 18, 2, 1), 3), ((2, 3, 2, 2), 1)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDepth2Space(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.r = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.depth2space(x, self.r),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_expected(x, self.r),)


def test_documented_example():
    x = numpy.arange(24).reshape(1, 4, 2, 3).astype(numpy.float32)
    y = functions.depth2space(x, 2)
    numpy.testing.assert_array_equal(
        y.array[0, 0],
        [
            [0, 6, 1, 7, 2, 8],
            [12, 18, 13, 19, 14, 20],
            [3, 9, 4, 10, 5, 11],
            [15, 21, 16, 22, 17, 23],
        ],
    )


@pytest.mark.parametrize(
    ("shape", "dtype"),
    [((1, 3, 2, 2), "f"), ((4, 2, 2), "f"), ((1, 4, 2, 2), "i")],
)
def test_invalid(shape, dtype):
    x = numpy.zeros(shape, dtype)
    with pytest.raises(type_check.InvalidType):
        functions.depth2space(x, 2)


def test_bad_r():
    x = numpy.zeros((1, 4, 2, 2), numpy.float32)
    with pytest.raises(ValueError, match="r must be positive"):
        functions.depth2space(x, 0)
