import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _pair(v):
    return v if isinstance(v, tuple) else (v, v)


def _expected(x, ksize, dilate):
    # Channel group g takes kernel position g of the window, except that the
    # centre and the last position swap places; leftovers join the last group.
    kh, kw = _pair(ksize)
    dy, dx = _pair(dilate)
    n_groups = kh * kw
    _, c, h, w = x.shape
    size = c // n_groups
    y = numpy.zeros_like(x)
    for ch in range(c):
        g = min(ch // size, n_groups - 1)
        p = g
        if g == (n_groups - 1) // 2:
            p = n_groups - 1
        elif g == n_groups - 1:
            p = (n_groups - 1) // 2
        sy = (p // kw - kh // 2) * dy
        sx = (p % kw - kw // 2) * dx
        for i in range(h):
            for j in range(w):
                if 0 <= i - sy < h and 0 <= j - sx < w:
                    y[:, ch, i, j] = x[:, ch, i - sy, j - sx]
    return y


@testing.parameterize(
    *testing.product(
        {
            "case": [
                ((2, 9, 4, 5), 3, 1),
                ((1, 11, 3, 3), 3, 2),
                ((1, 7, 5, 4), (3, 1), (1, -2)),
                ((2, 30, 6, 6), 5, 1),
                ((1, 3, 2, 2), (1, 3), 3),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestShift(testing.FunctionTestCase):
    def generate_inputs(self):
        shape = self.case[0]
        return (numpy.random.uniform(-1, 1, shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        _, ksize, dilate = self.case
        return (functions.shift(x, ksize=ksize, dilate=dilate),)

    def forward_expected(self, inputs):
        (x,) = inputs
        _, ksize, dilate = self.case
        return (_expected(x, ksize, dilate),)


def test_default_window():
    x = numpy.arange(9, dtype=numpy.float32).reshape(1, 9, 1, 1) + 1
    y = functions.shift(x).array
    numpy.testing.assert_array_equal(y.ravel(), [0] * 8 + [9])


@pytest.mark.parametrize("ksize", [2, (3, 4)])
def test_even_window(ksize):
    x = numpy.zeros((1, 16, 3, 3), numpy.float32)
    with pytest.raises(ValueError, match="odd"):
        functions.shift(x, ksize=ksize)


@pytest.mark.parametrize(
    ("shape", "dtype"),
    [((1, 8, 3, 3), numpy.float32), ((9, 3, 3), numpy.float32), ((1, 9, 3, 3), "i")],
)
def test_invalid(shape, dtype):
    x = numpy.zeros(shape, dtype)
    with pytest.raises(type_check.InvalidType):
        functions.shift(x)
