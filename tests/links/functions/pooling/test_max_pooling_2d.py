import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.functions.pooling import max_pooling_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _outsize(size, k, s, p, cover_all):
    return (size + 2 * p - k + (s - 1 if cover_all else 0)) // s + 1


def _reference(x, ksize, stride, pad, cover_all):
    # Max and first argmax (row-major in the window) of each window.
    (kh, kw), (ph, pw) = _pair(ksize), _pair(pad)
    sy, sx = _pair(ksize if stride is None else stride)
    n, c, h, w = x.shape
    out_h = _outsize(h, kh, sy, ph, cover_all)
    out_w = _outsize(w, kw, sx, pw, cover_all)
    y = numpy.empty((n, c, out_h, out_w), x.dtype)
    idx = numpy.empty((n, c, out_h, out_w), numpy.int64)
    for i in range(out_h):
        for j in range(out_w):
            win = numpy.full((n, c, kh, kw), -numpy.inf, x.dtype)
            for a in range(kh):
                for b in range(kw):
                    r, q = i * sy - ph + a, j * sx - pw + b
                    if 0 <= r < h and 0 <= q < w:
                        win[:, :, a, b] = x[:, :, r, q]
            flat = win.reshape(n, c, kh * kw)
            idx[:, :, i, j] = flat.argmax(axis=2)
            y[:, :, i, j] = flat.max(axis=2)
    return y, idx


def _distinct(shape, dtype):
    # Well separated values: max pooling is differentiable around them.
    size = int(numpy.prod(shape))
    perm = numpy.random.permutation(size).reshape(shape)
    return (perm * (2.0 / size) - 1).astype(dtype)


@testing.parameterize(
    *testing.product(
        {
            "params": [
                dict(ksize=2, stride=None, pad=0),
                dict(ksize=3, stride=2, pad=1),
                dict(ksize=(2, 3), stride=(1, 2), pad=(1, 0)),
                dict(ksize=(1, 2), stride=2, pad=0),
            ],
            "cover_all": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestMaxPooling2D(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (_distinct((2, 3, 5, 6), self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.max_pooling_2d(x, cover_all=self.cover_all, **self.params),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y, _ = _reference(x, cover_all=self.cover_all, **self.params)
        return (y,)


@pytest.mark.parametrize(
    ("ksize", "stride", "pad", "cover_all"),
    [(2, None, 0, True), (3, 2, 1, True), ((2, 3), (1, 2), (1, 0), False)],
)
def test_return_indices_ties_pick_first(ksize, stride, pad, cover_all):
    # ReLU-like inputs are full of ties; the first maximum wins, as argmax.
    x = numpy.maximum(numpy.random.uniform(-1, 1, (2, 3, 7, 6)), 0).round(1)
    x = x.astype(numpy.float32)
    y, idx = functions.max_pooling_2d(x, ksize, stride, pad, cover_all, True)
    y_ref, idx_ref = _reference(x, ksize, stride, pad, cover_all)
    numpy.testing.assert_array_equal(y.array, y_ref)
    assert idx.dtype == numpy.int64
    numpy.testing.assert_array_equal(idx, idx_ref)


def test_gradient_goes_to_first_tie_only():
    x = chainer.Variable(numpy.zeros((1, 1, 2, 2), numpy.float32))
    y = functions.max_pooling_2d(x, 2)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad[0, 0], [[1, 0], [0, 0]])


def test_overlapping_windows_accumulate():
    x = chainer.Variable(numpy.array([[[[0, 1, 0], [1, 5, 1], [0, 1, 0]]]], "f"))
    y = functions.max_pooling_2d(x, 2, stride=1, cover_all=False)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad[0, 0], [[0, 0, 0], [0, 4, 0], [0, 0, 0]])


def test_node_attributes_and_indexes():
    # The object of the upsampling_2d example: kh, sy, ph and indexes.
    p = max_pooling_2d.MaxPooling2D((2, 3), (1, 2), (1, 0))
    assert (p.kh, p.kw, p.sy, p.sx, p.ph, p.pw) == (2, 3, 1, 2, 1, 0)
    assert p.cover_all
    x = numpy.arange(1, 37, dtype=numpy.float32).reshape(1, 1, 6, 6)
    (_y,) = p.apply((x,))
    _, idx_ref = _reference(x, (2, 3), (1, 2), (1, 0), True)
    numpy.testing.assert_array_equal(p.indexes, idx_ref)


def test_indexes_before_forward():
    with pytest.raises(RuntimeError, match="after the forward"):
        max_pooling_2d.MaxPooling2D(2).indexes  # noqa: B018


def test_third_order_gradient():
    x = chainer.Variable(_distinct((1, 2, 4, 4), numpy.float64))
    y = functions.max_pooling_2d(x, 2)
    (gx,) = chainer.grad([functions.sum(y * y)], [x], enable_double_backprop=True)
    (ggx,) = chainer.grad([functions.sum(gx * gx)], [x], enable_double_backprop=True)
    (g3,) = chainer.grad([functions.sum(ggx * ggx)], [x])
    # gx = 2 y at the argmax, ggx = 8 y there, g3 = 128 y there.
    winners = x.array == numpy.repeat(numpy.repeat(y.array, 2, axis=2), 2, axis=3)
    numpy.testing.assert_allclose(g3.array, 128 * x.array * winners)


def test_non_contiguous_and_empty_batch():
    x = numpy.random.rand(4, 3, 6, 8).astype(numpy.float32)
    xt = x.transpose(0, 1, 3, 2)
    y_ref, _ = _reference(numpy.ascontiguousarray(xt), 2, None, 0, True)
    numpy.testing.assert_array_equal(functions.max_pooling_2d(xt, 2).array, y_ref)
    y = functions.max_pooling_2d(numpy.zeros((0, 3, 4, 4), numpy.float32), 2)
    assert y.shape == (0, 3, 2, 2)


def test_inference_does_not_keep_indexes():
    x = numpy.random.rand(1, 1, 4, 4).astype(numpy.float32)
    with chainer.no_backprop_mode():
        y = functions.max_pooling_2d(chainer.Variable(x), 2)
    assert y.creator is None


@pytest.mark.parametrize(
    ("shape", "dtype", "ksize"),
    [
        ((2, 3, 4), numpy.float32, 2),
        ((1, 1, 4, 4), numpy.int32, 2),
        ((1, 1, 2, 2), numpy.float32, 3),
    ],
)
def test_invalid_input(shape, dtype, ksize):
    with pytest.raises(type_check.InvalidType):
        functions.max_pooling_2d(
            numpy.zeros(shape, dtype), ksize, stride=1, cover_all=False
        )


@pytest.mark.parametrize(
    "kwargs", [dict(ksize=0), dict(ksize=2, stride=0), dict(ksize=2, pad=-1)]
)
def test_invalid_geometry(kwargs):
    with pytest.raises(ValueError, match="must"):
        functions.max_pooling_2d(numpy.zeros((1, 1, 4, 4), numpy.float32), **kwargs)


def test_bad_ksize_length():
    with pytest.raises(ValueError, match="ksize"):
        functions.max_pooling_2d(numpy.zeros((1, 1, 4, 4), numpy.float32), (2, 2, 2))
