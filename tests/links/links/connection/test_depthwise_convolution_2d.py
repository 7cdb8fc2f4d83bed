import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.connection import depthwise_convolution_2d

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, W, b, stride, pad):
    # Output channel c * c_M + m correlates input channel c with W[m, c].
    n, c, h, w = x.shape
    mult, _, kh, kw = W.shape
    xp = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out_h = (h + 2 * pad - kh) // stride + 1
    out_w = (w + 2 * pad - kw) // stride + 1
    y = numpy.zeros((n, c, mult, out_h, out_w))
    for j in range(kh):
        for i in range(kw):
            win = xp[
                :,
                :,
                j : j + stride * (out_h - 1) + 1 : stride,
                i : i + stride * (out_w - 1) + 1 : stride,
            ]
            y += win[:, :, None] * W[:, :, j, i].T[None, :, :, None, None]
    y = y.reshape(n, c * mult, out_h, out_w)
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


@testing.parameterize(
    *testing.product(
        {
            "conv": [(2, 1, 1), (1, 2, 0)],  # multiplier, stride, pad
            "nobias": [False, True],
            "lazy": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDepthwiseConvolution2D(testing.LinkTestCase):
    def setUp(self):
        self.param_names = ("W",) if self.nobias else ("W", "b")
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_params(self):
        mult = self.conv[0]
        W = numpy.random.uniform(-1, 1, (mult, 3, 3, 3)).astype(self.dtype)
        if self.nobias:
            return (W,)
        return W, numpy.random.uniform(-1, 1, 3 * mult).astype(self.dtype)

    def create_link(self, inits):
        mult, stride, pad = self.conv
        W = inits[0]
        b = None if self.nobias else inits[1]
        with chainer.using_config("dtype", self.dtype):
            return depthwise_convolution_2d.DepthwiseConvolution2D(
                None if self.lazy else 3, mult, 3, stride, pad, self.nobias, W, b
            )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 5, 4)).astype(self.dtype),)

    def forward(self, link, inputs, device):
        # Lazily shaped parameters take the configured dtype when they are
        # initialized, i.e. at the first call.
        with chainer.using_config("dtype", self.dtype):
            return (link(*inputs),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        _, stride, pad = self.conv
        b = None if link.b is None else link.b.array.astype(numpy.float64)
        W = link.W.array.astype(numpy.float64)
        y = _reference(x.astype(numpy.float64), W, b, stride, pad)
        return (y.astype(self.dtype),)


def test_defaults_and_lazy_shapes():
    link = depthwise_convolution_2d.DepthwiseConvolution2D(None, 2, 3, pad=1)
    assert link.W.array is None
    assert link.b.array is None
    y = link(numpy.ones((1, 4, 5, 5), numpy.float32))
    assert y.shape == (1, 8, 5, 5)
    assert link.W.shape == (2, 4, 3, 3)
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(8))
    assert isinstance(link.W.initializer, initializers.LeCunNormal)
    assert "DepthwiseConvolution2D(in_channels=4, channel_multiplier=2" in repr(link)


def test_wrong_input():
    link = depthwise_convolution_2d.DepthwiseConvolution2D(3, 2, 3)
    with pytest.raises(ValueError, match="c_M, c_I, k_H, k_W"):
        link(numpy.ones((1, 4, 5, 5), numpy.float32))
    lazy = depthwise_convolution_2d.DepthwiseConvolution2D(None, 2, 3)
    with pytest.raises(ValueError, match=r"\(n, c, h, w\)"):
        lazy(numpy.ones((1, 4, 5), numpy.float32))


def test_serialization_round_trip():
    src = depthwise_convolution_2d.DepthwiseConvolution2D(3, 2, 2)
    dst = depthwise_convolution_2d.DepthwiseConvolution2D(None, 2, 2)
    dst(numpy.ones((1, 3, 3, 3), numpy.float32))
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)
    numpy.testing.assert_array_equal(dst.b.array, src.b.array)
