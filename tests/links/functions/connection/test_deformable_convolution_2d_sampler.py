import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _bilinear(img, v, u):
    # img (c, H, W) sampled at (v, u); pixels outside read zero.
    H, W = img.shape[1:]
    v0, u0 = int(numpy.floor(v)), int(numpy.floor(u))
    out = numpy.zeros(img.shape[0])
    for vv in (v0, v0 + 1):
        for uu in (u0, u0 + 1):
            if 0 <= vv < H and 0 <= uu < W:
                out += (1 - abs(v - vv)) * (1 - abs(u - uu)) * img[:, vv, uu]
    return out


def _expected(x, offset, W, b, stride, pad):
    sy, sx = stride
    ph, pw = pad
    out_c, _, kh, kw = W.shape
    n, _, out_h, out_w = offset.shape
    xp = numpy.pad(x.astype(numpy.float64), ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    y = numpy.zeros((n, out_c, out_h, out_w))
    for b_ in range(n):
        for i in range(out_h):
            for j in range(out_w):
                for ky in range(kh):
                    for kx in range(kw):
                        k = ky * kw + kx
                        v = i * sy + ky + offset[b_, kh * kw + k, i, j]
                        u = j * sx + kx + offset[b_, k, i, j]
                        s = _bilinear(xp[b_], v, u)
                        y[b_, :, i, j] += W[:, :, ky, kx] @ s
    if b is not None:
        y += b[None, :, None, None]
    return y


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # x shape, ksize, stride, pad
                ((2, 2, 4, 4), (2, 2), (1, 1), (0, 0)),
                ((1, 3, 5, 4), (3, 3), (2, 1), (1, 1)),
                ((1, 2, 3, 5), (1, 2), (1, 2), (0, 1)),
            ],
            "nobias": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDeformableConvolution2DSampler(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_backward_options = {"atol": 1e-1, "rtol": 1e-1}
            self.check_double_backward_options = {"atol": 1e-1, "rtol": 1e-1}
        else:
            self.check_forward_options = {"atol": 1e-4, "rtol": 1e-4}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        x_shape, (kh, kw), (sy, sx), (ph, pw) = self.case
        n, c, h, w = x_shape
        out_h = (h + 2 * ph - kh) // sy + 1
        out_w = (w + 2 * pw - kw) // sx + 1
        x = numpy.random.uniform(-1, 1, x_shape).astype(self.dtype)
        # Fractional positions away from pixel centres (the sampler's kinks),
        # some of them outside the image.
        offset_shape = (n, 2 * kh * kw, out_h, out_w)
        offset = numpy.random.randint(-2, 2, offset_shape) + numpy.random.uniform(
            0.2, 0.8, offset_shape
        )
        W = numpy.random.uniform(-1, 1, (2, c, kh, kw)).astype(self.dtype)
        inputs = (x, offset.astype(self.dtype), W)
        if not self.nobias:
            inputs += (numpy.random.uniform(-1, 1, 2).astype(self.dtype),)
        return inputs

    def forward(self, inputs, device):
        _, _, stride, pad = self.case
        x, offset, W = inputs[:3]
        b = None if self.nobias else inputs[3]
        y = functions.deformable_convolution_2d_sampler(x, offset, W, b, stride, pad)
        return (y,)

    def forward_expected(self, inputs):
        _, _, stride, pad = self.case
        x, offset, W = inputs[:3]
        b = None if self.nobias else inputs[3]
        y = _expected(x, offset, W, b, stride, pad)
        return (y.astype(self.dtype),)


def test_zero_offset_is_convolution():
    x = numpy.random.uniform(-1, 1, (2, 3, 5, 6)).astype(numpy.float32)
    W = numpy.random.uniform(-1, 1, (4, 3, 3, 3)).astype(numpy.float32)
    b = numpy.random.uniform(-1, 1, 4).astype(numpy.float32)
    offset = numpy.zeros((2, 18, 3, 4), numpy.float32)
    y = functions.deformable_convolution_2d_sampler(x, offset, W, b, stride=1, pad=0)
    expected = numpy.zeros((2, 4, 3, 4))
    for i in range(3):
        for j in range(4):
            patch = x[:, :, i : i + 3, j : j + 3]
            expected[:, :, i, j] = numpy.einsum("ncpq,ocpq->no", patch, W) + b
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)


def test_offset_channels_must_match_kernel():
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    W = numpy.zeros((3, 2, 2, 2), numpy.float32)
    offset = numpy.zeros((1, 6, 3, 3), numpy.float32)
    with pytest.raises(ValueError, match="offset"):
        functions.deformable_convolution_2d_sampler(x, offset, W)


@pytest.mark.parametrize(
    ("x_shape", "offset_shape", "W_shape", "b_shape", "offset_dtype"),
    [
        ((2, 4, 4), (1, 8, 3, 3), (3, 2, 2, 2), None, "f"),
        ((1, 2, 4, 4), (1, 8, 3, 3), (3, 3, 2, 2), None, "f"),
        ((1, 2, 4, 4), (2, 8, 3, 3), (3, 2, 2, 2), None, "f"),
        ((1, 2, 4, 4), (1, 8, 3, 3), (3, 2, 2, 2), (2,), "f"),
        ((1, 2, 4, 4), (1, 8, 3, 3), (3, 2, 2, 2), None, "d"),
    ],
)
def test_invalid(x_shape, offset_shape, W_shape, b_shape, offset_dtype):
    x = numpy.zeros(x_shape, numpy.float32)
    offset = numpy.zeros(offset_shape, offset_dtype)
    W = numpy.zeros(W_shape, numpy.float32)
    b = None if b_shape is None else numpy.zeros(b_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.deformable_convolution_2d_sampler(x, offset, W, b)
