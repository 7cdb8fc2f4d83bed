import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.connection import convolution_2d
from chainer.functions.connection import deconvolution_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _pair(v):
    return v if isinstance(v, tuple) else (v, v)


def _reference(x, W, b, stride, pad, outsize, dilate, groups):
    # Scatter every input pixel times its filter onto the output.
    x = x.astype(numpy.float64)
    W = W.astype(numpy.float64)
    n, c_in, h, w = x.shape
    _, og, kh, kw = W.shape
    (sy, sx), (ph, pw), (dy, dx) = _pair(stride), _pair(pad), _pair(dilate)
    if outsize is None:
        outsize = (
            sy * (h - 1) + (kh - 1) * dy + 1 - 2 * ph,
            sx * (w - 1) + (kw - 1) * dx + 1 - 2 * pw,
        )
    out_h, out_w = outsize
    ig = c_in // groups
    y = numpy.zeros((n, og * groups, out_h, out_w))
    for ci in range(c_in):
        g = ci // ig
        for iy in range(h):
            for ix in range(w):
                for j in range(kh):
                    for i in range(kw):
                        row = iy * sy - ph + j * dy
                        col = ix * sx - pw + i * dx
                        if 0 <= row < out_h and 0 <= col < out_w:
                            y[:, g * og : (g + 1) * og, row, col] += numpy.outer(
                                x[:, ci, iy, ix], W[ci, :, j, i]
                            )
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


@testing.parameterize(
    *testing.product(
        {
            "deconv": [
                # ksize, stride, pad, outsize, dilate, groups, (c_I, c_O)
                (3, 1, 1, None, 1, 1, (2, 4)),
                (3, 1, 0, None, 1, 1, (4, 2)),
                ((2, 3), (2, 1), (1, 0), None, (1, 2), 2, (2, 4)),
                (2, 2, 1, (5, 3), 1, 1, (2, 2)),
                (1, 1, 0, None, 1, 2, (4, 2)),
            ],
            "nobias": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDeconvolution2D(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        ksize, _, _, _, _, groups, (c_in, c_out) = self.deconv
        kh, kw = _pair(ksize)
        x = numpy.random.uniform(-1, 1, (2, c_in, 3, 3)).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (c_in, c_out // groups, kh, kw))
        W = W.astype(self.dtype)
        if self.nobias:
            return x, W
        return x, W, numpy.random.uniform(-1, 1, c_out).astype(self.dtype)

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        _, stride, pad, outsize, dilate, groups, _ = self.deconv
        y = deconvolution_2d.deconvolution_2d(
            x, W, b, stride, pad, outsize, dilate=dilate, groups=groups
        )
        return (y,)

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        _, stride, pad, outsize, dilate, groups, _ = self.deconv
        y = _reference(x, W, b, stride, pad, outsize, dilate, groups)
        return (y.astype(self.dtype),)


def test_is_adjoint_of_convolution():
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 3, 7, 6))
    W = rng.uniform(-1, 1, (4, 3, 3, 2))
    y = convolution_2d.convolution_2d(x, W, stride=2, pad=1, cover_all=True).array
    gy = rng.uniform(-1, 1, y.shape)
    gx = deconvolution_2d.deconvolution_2d(gy, W, stride=2, pad=1, outsize=(7, 6))
    numpy.testing.assert_allclose((y * gy).sum(), (x * gx.array).sum())


def test_node_class():
    x = chainer.Variable(numpy.zeros((1, 2, 3, 3), numpy.float32))
    W = numpy.zeros((2, 1, 2, 2), numpy.float32)
    y = deconvolution_2d.deconvolution_2d(x, W, stride=2)
    assert isinstance(y.creator, deconvolution_2d.Deconvolution2DFunction)
    assert y.shape == (1, 1, 6, 6)


def test_invalid():
    x = numpy.zeros((1, 2, 3, 3), numpy.float32)
    W = numpy.zeros((2, 1, 2, 2), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        deconvolution_2d.deconvolution_2d(x, W, stride=2, outsize=(9, 6))
    with pytest.raises(type_check.InvalidType):
        deconvolution_2d.deconvolution_2d(x[0], W)
    with pytest.raises(ValueError, match="deterministic argument is not supported"):
        deconvolution_2d.deconvolution_2d(x, W, deterministic=False)
    with pytest.raises(TypeError, match="unexpected keyword"):
        deconvolution_2d.deconvolution_2d(x, W, cover_all=True)


@testing.parameterize(
    *testing.product(
        {
            # Unit strides run both algorithms: c_I > c_O scatters a patch
            # matrix, c_I <= c_O convolves with the flipped filters.
            "channels": [(4, 2), (2, 4)],
            "dtype": [numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDeconvolution2DAlgorithms(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        c_in, c_out = self.channels
        x = numpy.random.uniform(-1, 1, (2, c_in, 3, 14)).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (c_in, c_out, 3, 3)).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, c_out).astype(self.dtype)
        return x, W, b

    def forward(self, inputs, device):
        x, W, b = inputs
        return (deconvolution_2d.deconvolution_2d(x, W, b, 1, 1),)

    def forward_expected(self, inputs):
        x, W, b = inputs
        return (_reference(x, W, b, 1, 1, None, 1, 1).astype(self.dtype),)
