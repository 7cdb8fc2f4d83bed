import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.functions.pooling import unpooling_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _reference(x, ksize, stride, pad, outsize, cover_all):
    (kh, kw), (ph, pw) = _pair(ksize), _pair(pad)
    sy, sx = _pair(ksize if stride is None else stride)
    n, c, h, w = x.shape
    if outsize is None:
        extra_y, extra_x = (sy - 1, sx - 1) if cover_all else (0, 0)
        outsize = (
            sy * (h - 1) + kh - 2 * ph - extra_y,
            sx * (w - 1) + kw - 2 * pw - extra_x,
        )
    out_h, out_w = outsize
    y = numpy.zeros((n, c, out_h, out_w), x.dtype)
    for i in range(h):
        for j in range(w):
            for a in range(kh):
                for b in range(kw):
                    r, q = i * sy - ph + a, j * sx - pw + b
                    if 0 <= r < out_h and 0 <= q < out_w:
                        y[:, :, r, q] += x[:, :, i, j]
    return y


@testing.parameterize(
    *testing.product(
        {
            "params": [
                dict(ksize=2, stride=None, pad=0, outsize=None),
                dict(ksize=3, stride=2, pad=1, outsize=None),
                dict(ksize=(2, 3), stride=(1, 2), pad=(1, 0), outsize=None),
                dict(ksize=2, stride=2, pad=0, outsize=(6, 6)),
            ],
            "cover_all": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestUnpooling2D(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 2e-3, "rtol": 2e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 3, 3)).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.unpooling_2d(x, cover_all=self.cover_all, **self.params),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_reference(x, cover_all=self.cover_all, **self.params),)


def test_node_attributes():
    node = unpooling_2d.Unpooling2D((2, 3), 1, 0, outsize=(4, 5))
    assert (node.kh, node.kw, node.sy, node.outh, node.outw) == (2, 3, 1, 4, 5)
    node = unpooling_2d.Unpooling2D(2)
    assert (node.outh, node.outw) == (None, None)


def test_output_sizes():
    x = numpy.zeros((2, 3, 6, 6), numpy.float32)
    assert functions.unpooling_2d(x, 2).shape == (2, 3, 11, 11)
    assert functions.unpooling_2d(x, 2, cover_all=False).shape == (2, 3, 12, 12)
    assert functions.unpooling_2d(x, 3, 2, 1).shape == (2, 3, 10, 10)


@pytest.mark.parametrize(
    ("shape", "dtype", "outsize"),
    [
        ((2, 3, 4), numpy.float32, None),
        ((1, 1, 4, 4), numpy.int32, None),
        ((1, 1, 3, 3), numpy.float32, (20, 20)),
    ],
)
def test_invalid_input(shape, dtype, outsize):
    with pytest.raises(type_check.InvalidType):
        functions.unpooling_2d(numpy.zeros(shape, dtype), 2, outsize=outsize)
