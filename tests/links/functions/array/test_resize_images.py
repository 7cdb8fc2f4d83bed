import math

import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _source(i, in_size, out_size, mode, align_corners):
    # Two source indices and the weight of the second, per output index.
    if mode == "nearest":
        k = min(math.floor(i * in_size / out_size), in_size - 1)
        return k, k, 0.0
    if align_corners:
        p = i * (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    else:
        p = max((i + 0.5) * in_size / out_size - 0.5, 0.0)
    k = min(math.floor(p), in_size - 1)
    return k, min(k + 1, in_size - 1), p - k


def _resize(x, out_shape, mode, align_corners):
    n, c, H, W = x.shape
    out_H, out_W = out_shape
    y = numpy.zeros((n, c, out_H, out_W))
    for i in range(out_H):
        v0, v1, wv = _source(i, H, out_H, mode, align_corners)
        for j in range(out_W):
            u0, u1, wu = _source(j, W, out_W, mode, align_corners)
            y[:, :, i, j] = (
                (1 - wv) * (1 - wu) * x[:, :, v0, u0]
                + (1 - wv) * wu * x[:, :, v0, u1]
                + wv * (1 - wu) * x[:, :, v1, u0]
                + wv * wu * x[:, :, v1, u1]
            )
    return y.astype(x.dtype)


@testing.parameterize(
    *testing.product(
        {
            "out_shape": [(3, 7), (8, 2), (4, 5), (1, 1)],
            "mode": ["bilinear", "nearest"],
            "align_corners": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestResizeImages(testing.FunctionTestCase):
    in_shape = (2, 3, 4, 5)

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 2e-3, "rtol": 2e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.in_shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (
            functions.resize_images(
                x, self.out_shape, mode=self.mode, align_corners=self.align_corners
            ),
        )

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_resize(x, self.out_shape, self.mode, self.align_corners),)


def test_default_is_bilinear_aligned():
    x = numpy.array([[[[0, 1], [2, 3]]]], numpy.float32)
    y = functions.resize_images(x, (3, 3))
    numpy.testing.assert_allclose(y.array[0, 0, 1], [1, 1.5, 2])


@pytest.mark.parametrize(("shape", "dtype"), [((3, 4, 5), "f"), ((1, 1, 4, 5), "i")])
def test_invalid_input(shape, dtype):
    with pytest.raises(type_check.InvalidType):
        functions.resize_images(numpy.zeros(shape, dtype), (2, 2))


@pytest.mark.parametrize("out_shape", [(0, 2), (2,), (2, 2, 2), (2.5, 2)])
def test_invalid_output_shape(out_shape):
    x = numpy.zeros((1, 1, 4, 5), numpy.float32)
    with pytest.raises(ValueError, match="output_shape"):
        functions.resize_images(x, out_shape)


def test_invalid_mode():
    x = numpy.zeros((1, 1, 4, 5), numpy.float32)
    with pytest.raises(ValueError, match="mode"):
        functions.resize_images(x, (2, 2), mode="bicubic")
