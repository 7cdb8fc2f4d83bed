import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.functions.pooling import max_pooling_2d
from chainer.functions.pooling import upsampling_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _reference(x, indexes, ksize, stride, pad, outsize, cover_all):
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
    for b in range(n):
        for ch in range(c):
            for i in range(h):
                for j in range(w):
                    a, q = divmod(int(indexes[b, ch, i, j]), kw)
                    r, col = i * sy - ph + a, j * sx - pw + q
                    if 0 <= r < out_h and 0 <= col < out_w:
                        y[b, ch, r, col] += x[b, ch, i, j]
    return y


@testing.parameterize(
    *testing.product(
        {
            "params": [
                dict(ksize=2, stride=None, pad=0, outsize=(6, 6)),
                dict(ksize=3, stride=2, pad=1, outsize=None),
                dict(ksize=(2, 3), stride=(1, 2), pad=(1, 0), outsize=None),
                dict(ksize=2, stride=1, pad=0, outsize=None),
            ],
            "cover_all": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestUpsampling2D(testing.FunctionTestCase):
    def setUp(self):
        kh, kw = _pair(self.params["ksize"])
        self.indexes = numpy.random.randint(0, kh * kw, (2, 3, 3, 3))
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 2e-3, "rtol": 2e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 3, 3)).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        indexes = device.send(self.indexes)
        y = functions.upsampling_2d(x, indexes, cover_all=self.cover_all, **self.params)
        return (y,)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = _reference(x, self.indexes, cover_all=self.cover_all, **self.params)
        return (y,)


def test_documented_example():
    p = max_pooling_2d.MaxPooling2D(2, 2)
    x = numpy.arange(1, 37).reshape(1, 1, 6, 6).astype("f")
    (pooled,) = p.apply((chainer.Variable(x),))
    numpy.testing.assert_array_equal(
        pooled.array[0, 0], [[8, 10, 12], [20, 22, 24], [32, 34, 36]]
    )
    y = functions.upsampling_2d(pooled, p.indexes, p.kh, p.sy, p.ph, x.shape[2:])
    expected = numpy.zeros((6, 6), numpy.float32)
    expected[1::2, 1::2] = pooled.array[0, 0]
    numpy.testing.assert_array_equal(y.array[0, 0], expected)
    assert functions.upsampling_2d(pooled, p.indexes, 2).shape == (1, 1, 5, 5)


def test_inverts_max_pooling_gradient():
    # upsampling_2d(gy, indexes) is max_pooling_2d's gradient.
    x = chainer.Variable(numpy.random.rand(2, 3, 7, 6).astype(numpy.float32))
    y, indexes = functions.max_pooling_2d(x, 3, 2, 1, return_indices=True)
    gy = numpy.random.rand(*y.shape).astype(numpy.float32)
    y.grad = gy
    y.backward()
    up = functions.upsampling_2d(gy, indexes, 3, 2, 1, outsize=(7, 6))
    numpy.testing.assert_allclose(up.array, x.grad, rtol=1e-6)


def test_node_attributes():
    node = upsampling_2d.Upsampling2D(numpy.zeros((1, 1, 2, 2)), 2, outsize=(4, 3))
    assert (node.kh, node.sy, node.outh, node.outw) == (2, 2, 4, 3)


@pytest.mark.parametrize(
    ("shape", "index_shape", "outsize"),
    [
        ((1, 1, 2, 3), (1, 1, 3, 3), None),
        ((1, 1, 3), (1, 1, 3), None),
        ((1, 1, 3, 3), (1, 1, 3, 3), (20, 6)),
    ],
)
def test_invalid_input(shape, index_shape, outsize):
    x = numpy.zeros(shape, numpy.float32)
    indexes = numpy.zeros(index_shape, numpy.int64)
    with pytest.raises(type_check.InvalidType):
        functions.upsampling_2d(x, indexes, 2, outsize=outsize)
