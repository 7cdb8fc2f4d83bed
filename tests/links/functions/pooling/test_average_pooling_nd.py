import itertools

import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.functions.pooling import average_pooling_nd
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _tuple(v, n):
    return tuple(v) if isinstance(v, tuple) else (v,) * n


def _reference(x, ksize, stride, pad, pad_value):
    nd = x.ndim - 2
    k, p = _tuple(ksize, nd), _tuple(pad, nd)
    s = k if stride is None else _tuple(stride, nd)
    out = tuple(
        (size + 2 * pi - ki) // si + 1
        for size, ki, si, pi in zip(x.shape[2:], k, s, p, strict=True)
    )
    y = numpy.empty(x.shape[:2] + out, x.dtype)
    for o in itertools.product(*(range(n) for n in out)):
        total = numpy.zeros(x.shape[:2])
        count = 0
        for tap in itertools.product(*(range(n) for n in k)):
            at = tuple(
                oi * si - pi + ti for oi, si, pi, ti in zip(o, s, p, tap, strict=True)
            )
            if all(0 <= a < size for a, size in zip(at, x.shape[2:], strict=True)):
                total += x[(Ellipsis, *at)]
                count += 1
        y[(Ellipsis, *o)] = total / (numpy.prod(k) if pad_value == 0 else count)
    return y


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
            "pad_value": [0, None],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestAveragePoolingND(testing.FunctionTestCase):
    def setUp(self):
        case = dict(self.case)
        self.shape = case.pop("shape")
        self.params = case
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 2e-3, "rtol": 2e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        f = {3: functions.average_pooling_1d, 5: functions.average_pooling_3d}[x.ndim]
        return (f(x, pad_value=self.pad_value, **self.params),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_reference(x, pad_value=self.pad_value, **self.params),)


def test_nd_matches_2d():
    x = numpy.random.rand(2, 3, 5, 6).astype(numpy.float32)
    numpy.testing.assert_array_equal(
        functions.average_pooling_nd(x, 3, 2, 1).array,
        functions.average_pooling_2d(x, 3, 2, 1).array,
    )


def test_window_in_padding_only_averages_to_zero():
    # pad >= ksize leaves a window without input elements.
    x = numpy.ones((1, 1, 2), numpy.float32)
    y = functions.average_pooling_1d(x, 1, 1, 1, pad_value=None)
    numpy.testing.assert_array_equal(y.array, [[[0, 1, 1, 0]]])


def test_bad_pad_value():
    with pytest.raises(ValueError, match="pad_value"):
        functions.average_pooling_nd(
            numpy.zeros((1, 1, 4), numpy.float32), 2, pad_value=1
        )


@pytest.mark.parametrize(
    ("func", "shape"),
    [
        (functions.average_pooling_1d, (1, 1, 4, 4)),
        (functions.average_pooling_3d, (1, 1, 4, 4)),
    ],
)
def test_wrong_spatial_rank(func, shape):
    with pytest.raises(ValueError, match="number of dimensions"):
        func(numpy.zeros(shape, numpy.float32), 2)


def test_invalid_input():
    with pytest.raises(type_check.InvalidType):
        functions.average_pooling_nd(numpy.zeros((1, 1, 4), numpy.int32), 2)
    with pytest.raises(type_check.InvalidType):
        functions.average_pooling_nd(numpy.zeros((1, 1, 2), numpy.float32), 3)
    with pytest.raises(type_check.InvalidType):
        average_pooling_nd.AveragePoolingND(2, 2).apply((numpy.zeros((1, 1, 4), "f"),))
