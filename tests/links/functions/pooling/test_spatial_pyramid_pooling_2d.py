import math

import numpy
import pytest

from chainer import functions
from chainer import testing

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _max_pool(x, kh, kw, ph, pw):
    # Max pooling with stride = ksize and cover_all; padding never wins.
    n, c, h, w = x.shape
    out_h = (h + 2 * ph - kh + kh - 1) // kh + 1
    out_w = (w + 2 * pw - kw + kw - 1) // kw + 1
    y = numpy.empty((n, c, out_h, out_w), x.dtype)
    for i in range(out_h):
        for j in range(out_w):
            r0, c0 = max(i * kh - ph, 0), max(j * kw - pw, 0)
            y[:, :, i, j] = x[:, :, r0 : i * kh - ph + kh, c0 : j * kw - pw + kw].max(
                axis=(2, 3)
            )
    return y


def _reference(x, pyramid_height):
    n, _c, h, w = x.shape
    ys = []
    for level in range(pyramid_height):
        bins = 2**level
        kh, kw = math.ceil(h / bins), math.ceil(w / bins)
        y = _max_pool(x, kh, kw, (kh * bins - h) // 2, (kw * bins - w) // 2)
        ys.append(y.reshape(n, -1, 1, 1))
    return numpy.concatenate(ys, axis=1)


@testing.parameterize(
    *testing.product(
        {
            "shape": [(2, 3, 7, 9), (1, 2, 8, 8), (2, 1, 6, 3)],
            "pyramid_height": [1, 3],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSpatialPyramidPooling2D(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        perm = numpy.random.permutation(int(numpy.prod(self.shape)))
        x = perm.reshape(self.shape) * (2.0 / perm.size) - 1
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        y = functions.spatial_pyramid_pooling_2d(x, self.pyramid_height, "max")
        return (y,)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_reference(x, self.pyramid_height),)


def test_output_length():
    x = numpy.random.rand(2, 3, 32, 24).astype(numpy.float32)
    y = functions.spatial_pyramid_pooling_2d(x, 4, "max")
    assert y.shape == (2, 3 * (1 + 4 + 16 + 64), 1, 1)


@pytest.mark.parametrize("pooling", [None, "avg", "average"])
def test_unsupported_pooling(pooling):
    x = numpy.zeros((1, 1, 4, 4), numpy.float32)
    with pytest.raises(ValueError, match="Unsupported pooling"):
        functions.spatial_pyramid_pooling_2d(x, 2, pooling)


def test_bad_pyramid_height():
    x = numpy.zeros((1, 1, 4, 4), numpy.float32)
    with pytest.raises(ValueError, match="pyramid_height"):
        functions.spatial_pyramid_pooling_2d(x, 0, "max")
