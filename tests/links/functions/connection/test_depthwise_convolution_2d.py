import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.connection import depthwise_convolution_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, W, b, stride, pad):
    # Output channel c * c_M + m correlates input channel c with W[m, c].
    x = x.astype(numpy.float64)
    W = W.astype(numpy.float64)
    n, c, h, w = x.shape
    mult, _, kh, kw = W.shape
    out_h = (h + 2 * pad - kh) // stride + 1
    out_w = (w + 2 * pad - kw) // stride + 1
    xp = numpy.zeros((n, c, h + 2 * pad, w + 2 * pad))
    xp[:, :, pad : pad + h, pad : pad + w] = x
    y = numpy.zeros((n, c, mult, out_h, out_w))
    for oy in range(out_h):
        for ox in range(out_w):
            window = xp[
                :, :, oy * stride : oy * stride + kh, ox * stride : ox * stride + kw
            ]
            y[:, :, :, oy, ox] = numpy.einsum("nchw,mchw->ncm", window, W)
    y = y.reshape(n, c * mult, out_h, out_w)
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


@testing.parameterize(
    *testing.product(
        {
            # channel multiplier, stride, pad
            "conv": [(1, 1, 0), (2, 2, 1), (3, 1, 1)],
            "nobias": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDepthwiseConvolution2D(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        mult = self.conv[0]
        x = numpy.random.uniform(-1, 1, (2, 3, 5, 4)).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (mult, 3, 3, 2)).astype(self.dtype)
        if self.nobias:
            return x, W
        return x, W, numpy.random.uniform(-1, 1, 3 * mult).astype(self.dtype)

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        _, stride, pad = self.conv
        y = depthwise_convolution_2d.depthwise_convolution_2d(x, W, b, stride, pad)
        return (y,)

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        _, stride, pad = self.conv
        return (_reference(x, W, b, stride, pad).astype(self.dtype),)


def test_variable_weight_gradient():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (1, 2, 3, 3)))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (2, 2, 2, 2)))
    y = depthwise_convolution_2d.depthwise_convolution_2d(x, W)
    assert y.shape == (1, 4, 2, 2)
    y.grad = numpy.ones(y.shape)
    y.backward()
    assert W.grad.shape == W.shape


def test_invalid():
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    with pytest.raises(ValueError, match="c_M, c_I, k_H, k_W"):
        depthwise_convolution_2d.depthwise_convolution_2d(
            x, numpy.zeros((1, 3, 2, 2), numpy.float32)
        )
    with pytest.raises(type_check.InvalidType):
        depthwise_convolution_2d.depthwise_convolution_2d(
            x, numpy.zeros((1, 2, 2, 2), numpy.float32), numpy.zeros(3, numpy.float32)
        )
