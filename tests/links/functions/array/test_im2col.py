import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _pair(v):
    return v if isinstance(v, tuple) else (v, v)


def _outsize(size, k, s, p, d, cover_all):
    dk = k + (k - 1) * (d - 1)
    extra = s - 1 if cover_all else 0
    return (size + 2 * p - dk + extra) // s + 1


def _expected(x, ksize, stride, pad, cover_all, dilate):
    (kh, kw), (sy, sx) = _pair(ksize), _pair(stride)
    (ph, pw), (dy, dx) = _pair(pad), _pair(dilate)
    n, c, h, w = x.shape
    out_h = _outsize(h, kh, sy, ph, dy, cover_all)
    out_w = _outsize(w, kw, sx, pw, dx, cover_all)
    y = numpy.zeros((n, c, kh, kw, out_h, out_w), x.dtype)
    for j in range(kh):
        for i in range(kw):
            for oy in range(out_h):
                for ox in range(out_w):
                    row = oy * sy - ph + j * dy
                    col = ox * sx - pw + i * dx
                    if 0 <= row < h and 0 <= col < w:
                        y[:, :, j, i, oy, ox] = x[:, :, row, col]
    return y.reshape(n, c * kh * kw, out_h, out_w)


@testing.parameterize(
    *testing.product(
        {
            "params": [
                # ksize, stride, pad, cover_all, dilate
                dict(ksize=2, stride=1, pad=0, cover_all=False, dilate=1),
                dict(
                    ksize=(3, 2), stride=(2, 1), pad=(1, 0), cover_all=False, dilate=1
                ),
                dict(ksize=2, stride=2, pad=1, cover_all=True, dilate=1),
                dict(ksize=(2, 3), stride=(1, 3), pad=1, cover_all=True, dilate=(2, 1)),
                dict(ksize=1, stride=1, pad=0, cover_all=False, dilate=1),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestIm2Col(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 4, 5)).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.im2col(x, **self.params),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_expected(x, **self.params),)


def test_overlapping_patches_gradient():
    import chainer

    x = chainer.Variable(numpy.zeros((1, 1, 3, 3), numpy.float32))
    y = functions.im2col(x, 2)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


@pytest.mark.parametrize(("shape", "dtype"), [((2, 3, 4), "f"), ((1, 1, 4, 4), "i")])
def test_invalid(shape, dtype):
    x = numpy.zeros(shape, dtype)
    with pytest.raises(type_check.InvalidType):
        functions.im2col(x, 2)


def test_kernel_larger_than_image():
    x = numpy.zeros((1, 1, 2, 2), numpy.float32)
    with pytest.raises(ValueError, match="output would be empty"):
        functions.im2col(x, 3)


def test_bad_ksize():
    x = numpy.zeros((1, 1, 2, 2), numpy.float32)
    with pytest.raises(ValueError, match="must be positive"):
        functions.im2col(x, 0)
