import numpy
import pytest

from chainer import testing
from chainer.functions.connection import dilated_convolution_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, W, b, stride, pad, dilate, cover_all):
    # Dilated taps read x at pad-shifted multiples of the dilation.
    x = x.astype(numpy.float64)
    W = W.astype(numpy.float64)
    n, c, h, w = x.shape
    out_c, _, kh, kw = W.shape
    extra = stride - 1 if cover_all else 0
    out_h = (h + 2 * pad - (kh - 1) * dilate - 1 + extra) // stride + 1
    out_w = (w + 2 * pad - (kw - 1) * dilate - 1 + extra) // stride + 1
    xp = numpy.zeros((n, c, h + 2 * pad + stride, w + 2 * pad + stride))
    xp[:, :, pad : pad + h, pad : pad + w] = x
    y = numpy.zeros((n, out_c, out_h, out_w))
    for j in range(kh):
        for i in range(kw):
            rows = slice(j * dilate, j * dilate + stride * (out_h - 1) + 1, stride)
            cols = slice(i * dilate, i * dilate + stride * (out_w - 1) + 1, stride)
            y += numpy.einsum("nchw,oc->nohw", xp[:, :, rows, cols], W[:, :, j, i])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


@testing.parameterize(
    *testing.product(
        {
            # stride, pad, dilate, cover_all
            "conv": [(1, 0, 2, False), (2, 2, 2, True), (1, 1, 3, False)],
            "nobias": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDilatedConvolution2D(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, (2, 3, 6, 5)).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (2, 3, 2, 2)).astype(self.dtype)
        if self.nobias:
            return x, W
        return x, W, numpy.random.uniform(-1, 1, 2).astype(self.dtype)

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        stride, pad, dilate, cover_all = self.conv
        y = dilated_convolution_2d.dilated_convolution_2d(
            x, W, b, stride, pad, dilate, cover_all
        )
        return (y,)

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        return (_reference(x, W, b, *self.conv).astype(self.dtype),)


def test_invalid():
    x = numpy.zeros((1, 1, 3, 3), numpy.float32)
    W = numpy.zeros((1, 1, 2, 2), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        # The dilated filter spans 5 pixels: more than the image.
        dilated_convolution_2d.dilated_convolution_2d(x, W, dilate=4)
    with pytest.raises(type_check.InvalidType):
        dilated_convolution_2d.dilated_convolution_2d(x.astype("i"), W)
