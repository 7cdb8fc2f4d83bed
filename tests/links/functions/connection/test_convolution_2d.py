import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.connection import convolution_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _pair(v):
    return v if isinstance(v, tuple) else (v, v)


def _reference(x, W, b, stride, pad, cover_all, dilate, groups):
    # Direct definition: every output pixel is a dot product of a window.
    x = x.astype(numpy.float64)
    W = W.astype(numpy.float64)
    n, c, h, w = x.shape
    out_c, _, kh, kw = W.shape
    (sy, sx), (ph, pw), (dy, dx) = _pair(stride), _pair(pad), _pair(dilate)
    extra_y = sy - 1 if cover_all else 0
    extra_x = sx - 1 if cover_all else 0
    out_h = (h + 2 * ph - (kh - 1) * dy - 1 + extra_y) // sy + 1
    out_w = (w + 2 * pw - (kw - 1) * dx - 1 + extra_x) // sx + 1
    y = numpy.zeros((n, out_c, out_h, out_w))
    cg, og = c // groups, out_c // groups
    for o in range(out_c):
        g = o // og
        for oy in range(out_h):
            for ox in range(out_w):
                for j in range(kh):
                    for i in range(kw):
                        row = oy * sy - ph + j * dy
                        col = ox * sx - pw + i * dx
                        if 0 <= row < h and 0 <= col < w:
                            y[:, o, oy, ox] += (
                                x[:, g * cg : (g + 1) * cg, row, col] @ W[o, :, j, i]
                            )
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


class _Convolution2DForward:
    # convolution_2d with the options of the ``conv`` parameter and its
    # _reference value, for FunctionTestCase (the bias is optional).

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        c = self.conv
        y = convolution_2d.convolution_2d(
            x, W, b, c["stride"], c["pad"], c["cover_all"],
            dilate=c["dilate"], groups=c["groups"],
        )  # fmt: skip
        return (y,)

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        c = self.conv
        y = _reference(
            x, W, b, c["stride"], c["pad"], c["cover_all"], c["dilate"], c["groups"]
        )
        return (y.astype(self.dtype),)


@testing.parameterize(
    *testing.product(
        {
            "conv": [
                dict(ksize=3, stride=1, pad=1, cover_all=False, dilate=1, groups=1),
                dict(
                    ksize=(2, 3),
                    stride=(2, 1),
                    pad=(1, 0),
                    cover_all=True,
                    dilate=1,
                    groups=1,
                ),
                dict(
                    ksize=2, stride=2, pad=0, cover_all=False, dilate=(2, 1), groups=2
                ),
                dict(ksize=1, stride=1, pad=0, cover_all=False, dilate=1, groups=1),
                dict(ksize=1, stride=2, pad=1, cover_all=True, dilate=1, groups=4),
            ],
            "nobias": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestConvolution2D(_Convolution2DForward, testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        kh, kw = _pair(self.conv["ksize"])
        groups = self.conv["groups"]
        x = numpy.random.uniform(-1, 1, (2, 4, 5, 4)).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (4, 4 // groups, kh, kw)).astype(self.dtype)
        if self.nobias:
            return x, W
        return x, W, numpy.random.uniform(-1, 1, 4).astype(self.dtype)


def test_node_class_and_gradient_nodes():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (2, 3, 4, 4)).astype("f"))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (2, 3, 3, 3)).astype("f"))
    y = convolution_2d.convolution_2d(x, W, pad=1)
    assert isinstance(y.creator, convolution_2d.Convolution2DFunction)
    assert y.creator.stride == (1, 1)
    assert y.creator.pad == (1, 1)
    gy = numpy.random.uniform(-1, 1, y.shape).astype("f")
    gx, gW = chainer.grad(
        [y], [x, W], [chainer.Variable(gy)], enable_double_backprop=True
    )
    assert gx.creator.label == "DeconvolutionND"
    assert gW.creator.label == "ConvolutionNDGradW"


def test_mixed_weight_dtype():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (1, 2, 4, 4)).astype("f"))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (3, 2, 2, 2)))
    y = convolution_2d.convolution_2d(x, W)
    assert y.dtype == numpy.float32
    expected = _reference(x.array, W.array, None, 1, 0, False, 1, 1)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)
    y.grad = numpy.ones(y.shape, "f")
    y.backward()
    assert W.grad.dtype == numpy.float64
    assert x.grad.dtype == numpy.float32


def test_backward_twice_recomputes_patches():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (2, 2, 5, 5)).astype("d"))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (3, 2, 3, 3)))
    y = convolution_2d.convolution_2d(x, W, stride=2, pad=1)
    y.grad = numpy.ones(y.shape)
    y.backward(retain_grad=True)
    first = W.grad.copy()
    W.cleargrad()
    y.backward()
    numpy.testing.assert_allclose(W.grad, first)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "b_shape", "kwargs"),
    [
        ((2, 3, 4), (2, 3, 3, 3), None, {}),  # x not 4-d
        ((2, 3, 4, 4), (2, 4, 3, 3), None, {}),  # channel mismatch
        ((2, 4, 4, 4), (3, 2, 3, 3), None, {"groups": 2}),  # out_c % groups
        ((2, 3, 4, 4), (2, 3, 3, 3), (3,), {}),  # bias size
        ((2, 3, 2, 2), (2, 3, 3, 3), None, {}),  # empty output
    ],
)
def test_invalid_types(x_shape, w_shape, b_shape, kwargs):
    x = numpy.zeros(x_shape, numpy.float32)
    W = numpy.zeros(w_shape, numpy.float32)
    b = None if b_shape is None else numpy.zeros(b_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        convolution_2d.convolution_2d(x, W, b, **kwargs)


def test_invalid_arguments():
    x = numpy.zeros((1, 1, 3, 3), numpy.float32)
    W = numpy.zeros((1, 1, 2, 2), numpy.float32)
    with pytest.raises(ValueError, match="deterministic argument is not supported"):
        convolution_2d.convolution_2d(x, W, deterministic=True)
    with pytest.raises(TypeError, match="unexpected keyword"):
        convolution_2d.convolution_2d(x, W, foo=1)
    with pytest.raises(ValueError, match="must be positive"):
        convolution_2d.convolution_2d(x, W, stride=0)
    with pytest.raises(ValueError, match="must not be negative"):
        convolution_2d.convolution_2d(x, W, pad=-1)
    with pytest.raises(ValueError, match="sequence of 2"):
        convolution_2d.convolution_2d(x, W, stride=(1, 1, 1))


@testing.parameterize(
    *testing.product(
        {
            # Unit strides with odd channel groups and per-axis dilation.
            "conv": [
                dict(ksize=3, stride=1, pad=1, cover_all=False, dilate=1, groups=1),
                dict(
                    ksize=(2, 3),
                    stride=1,
                    pad=(0, 1),
                    cover_all=True,
                    dilate=(2, 1),
                    groups=3,
                ),
            ],
            "dtype": [numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestConvolution2DGroupsDilation(_Convolution2DForward, testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        kh, kw = _pair(self.conv["ksize"])
        x = numpy.random.uniform(-1, 1, (2, 3, 4, 16)).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (6, 3 // self.conv["groups"], kh, kw))
        b = numpy.random.uniform(-1, 1, 6).astype(self.dtype)
        return x, W.astype(self.dtype), b


def test_empty_batch():
    x = chainer.Variable(numpy.zeros((0, 3, 5, 5), numpy.float32))
    W = chainer.Variable(numpy.ones((4, 3, 3, 3), numpy.float32))
    b = chainer.Variable(numpy.ones(4, numpy.float32))
    y = convolution_2d.convolution_2d(x, W, b, pad=1)
    assert y.shape == (0, 4, 5, 5)
    y.grad = numpy.zeros(y.shape, numpy.float32)
    y.backward()
    assert x.grad.shape == x.shape
    numpy.testing.assert_array_equal(W.grad, numpy.zeros(W.shape))
    numpy.testing.assert_array_equal(b.grad, numpy.zeros(4))
