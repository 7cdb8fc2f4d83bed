import itertools

import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.functions.pooling import max_pooling_nd
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _tuple(v, n):
    return tuple(v) if isinstance(v, tuple) else (v,) * n


def _reference(x, ksize, stride, pad, cover_all):
    # Max and first argmax (C order in the window) of each window.
    nd = x.ndim - 2
    k, p = _tuple(ksize, nd), _tuple(pad, nd)
    s = k if stride is None else _tuple(stride, nd)
    out = tuple(
        (size + 2 * pi - ki + (si - 1 if cover_all else 0)) // si + 1
        for size, ki, si, pi in zip(x.shape[2:], k, s, p, strict=True)
    )
    y = numpy.empty(x.shape[:2] + out, x.dtype)
    idx = numpy.empty(x.shape[:2] + out, numpy.int64)
    for o in itertools.product(*(range(n) for n in out)):
        vals = []
        for tap in itertools.product(*(range(n) for n in k)):
            at = tuple(
                oi * si - pi + ti for oi, si, pi, ti in zip(o, s, p, tap, strict=True)
            )
            inside = all(0 <= a < size for a, size in zip(at, x.shape[2:], strict=True))
            vals.append(
                x[(Ellipsis, *at)] if inside else numpy.full(x.shape[:2], -numpy.inf)
            )
        vals = numpy.stack(vals, axis=-1)
        y[(Ellipsis, *o)] = vals.max(axis=-1)
        idx[(Ellipsis, *o)] = vals.argmax(axis=-1)
    return y, idx


def _distinct(shape, dtype):
    size = int(numpy.prod(shape))
    perm = numpy.random.permutation(size).reshape(shape)
    return (perm * (2.0 / size) - 1).astype(dtype)


@testing.parameterize(
    *testing.product(
        {
            "case": [
                dict(shape=(2, 2, 7), ksize=2, stride=None, pad=0),
                dict(shape=(2, 2, 7), ksize=3, stride=2, pad=1),
                dict(shape=(1, 2, 4, 3, 5), ksize=2, stride=None, pad=0),
                dict(
                    shape=(1, 2, 4, 3, 5),
                    ksize=(2, 1, 3),
                    stride=(1, 2, 2),
                    pad=(1, 0, 1),
                ),
            ],
            "cover_all": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestMaxPoolingND(testing.FunctionTestCase):
    def setUp(self):
        case = dict(self.case)
        self.shape = case.pop("shape")
        self.params = case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (_distinct(self.shape, self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        f = {3: functions.max_pooling_1d, 5: functions.max_pooling_3d}[x.ndim]
        y = f(x, cover_all=self.cover_all, **self.params)
        return (y,)

    def forward_expected(self, inputs):
        (x,) = inputs
        y, _ = _reference(x, cover_all=self.cover_all, **self.params)
        return (y,)


def test_nd_matches_2d():
    x = numpy.random.rand(2, 3, 5, 6).astype(numpy.float32)
    y_nd, idx_nd = functions.max_pooling_nd(x, 3, 2, 1, return_indices=True)
    y_2d, idx_2d = functions.max_pooling_2d(x, 3, 2, 1, return_indices=True)
    numpy.testing.assert_array_equal(y_nd.array, y_2d.array)
    numpy.testing.assert_array_equal(idx_nd, idx_2d)


def test_return_indices_3d():
    x = numpy.maximum(numpy.random.uniform(-1, 1, (1, 2, 4, 5, 3)), 0).round(1)
    y, idx = functions.max_pooling_3d(x, 2, 1, 0, False, return_indices=True)
    y_ref, idx_ref = _reference(x, 2, 1, 0, False)
    numpy.testing.assert_array_equal(y.array, y_ref)
    numpy.testing.assert_array_equal(idx, idx_ref)


def test_large_window_uses_wide_indexes():
    # 17 x 17 = 289 taps do not fit in uint8.
    x = numpy.random.rand(1, 2, 17, 17).astype(numpy.float32)
    _y, idx = functions.max_pooling_nd(x, 17, return_indices=True)
    numpy.testing.assert_array_equal(idx.ravel(), x.reshape(2, -1).argmax(axis=1))
    node = max_pooling_nd.MaxPoolingND(2, 17)
    node.apply((x,))
    assert node._compact_indexes().dtype == numpy.int32


@pytest.mark.parametrize(
    ("func", "shape"),
    [
        (functions.max_pooling_1d, (1, 1, 4, 4)),
        (functions.max_pooling_3d, (1, 1, 4, 4)),
    ],
)
def test_wrong_spatial_rank(func, shape):
    with pytest.raises(ValueError, match="number of dimensions"):
        func(numpy.zeros(shape, numpy.float32), 2)


def test_invalid_input():
    with pytest.raises(type_check.InvalidType):
        functions.max_pooling_nd(numpy.zeros((1, 1, 4), numpy.int32), 2)
    with pytest.raises(type_check.InvalidType):
        max_pooling_nd.MaxPoolingND(2, 2).apply((numpy.zeros((1, 1, 4), "f"),))


def test_no_spatial_axis():
    with pytest.raises(ValueError, match="spatial axis"):
        functions.max_pooling_nd(numpy.zeros((2, 3), numpy.float32), 2)
