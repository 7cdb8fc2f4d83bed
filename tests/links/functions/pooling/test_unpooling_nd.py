import itertools

import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _tuple(v, n):
    return tuple(v) if isinstance(v, tuple) else (v,) * n


def _reference(x, ksize, stride, pad, outsize, cover_all):
    # Adds every input element over its window of the output.
    nd = x.ndim - 2
    k, p = _tuple(ksize, nd), _tuple(pad, nd)
    s = k if stride is None else _tuple(stride, nd)
    if outsize is None:
        outsize = tuple(
            si * (size - 1) + ki - 2 * pi - (si - 1 if cover_all else 0)
            for size, ki, si, pi in zip(x.shape[2:], k, s, p, strict=True)
        )
    y = numpy.zeros(x.shape[:2] + tuple(outsize), x.dtype)
    for o in itertools.product(*(range(n) for n in x.shape[2:])):
        for tap in itertools.product(*(range(n) for n in k)):
            at = tuple(
                oi * si - pi + ti for oi, si, pi, ti in zip(o, s, p, tap, strict=True)
            )
            if all(0 <= a < size for a, size in zip(at, outsize, strict=True)):
                y[(Ellipsis, *at)] += x[(Ellipsis, *o)]
    return y


@testing.parameterize(
    *testing.product(
        {
            "case": [
                dict(shape=(2, 2, 4), ksize=2, stride=None, pad=0, outsize=None),
                dict(shape=(2, 2, 4), ksize=3, stride=2, pad=1, outsize=(7,)),
                dict(shape=(1, 2, 2, 3, 2), ksize=2, stride=None, pad=0, outsize=None),
                dict(
                    shape=(1, 2, 2, 3, 2),
                    ksize=(2, 1, 3),
                    stride=(1, 2, 2),
                    pad=(1, 0, 1),
                    outsize=None,
                ),
            ],
            "cover_all": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestUnpoolingND(testing.FunctionTestCase):
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
        f = {3: functions.unpooling_1d, 5: functions.unpooling_3d}[x.ndim]
        return (f(x, cover_all=self.cover_all, **self.params),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_reference(x, cover_all=self.cover_all, **self.params),)


def test_nd_matches_2d():
    x = numpy.random.rand(2, 3, 3, 4).astype(numpy.float32)
    numpy.testing.assert_array_equal(
        functions.unpooling_nd(x, 3, 2, 1).array,
        functions.unpooling_2d(x, 3, 2, 1).array,
    )


def test_outsize_mismatch():
    with pytest.raises(type_check.InvalidType):
        functions.unpooling_nd(numpy.zeros((1, 1, 3), numpy.float32), 2, outsize=(9,))


@pytest.mark.parametrize("func", [functions.unpooling_nd, functions.unpooling_2d])
def test_empty_output_axis(func):
    # As in Chainer, padding may cut an axis down to length 0: the output is
    # an empty array, and its gradient an all-zero one.
    x = chainer.Variable(numpy.ones((2, 3, 3, 2), numpy.float32))
    y = func(x, 1, 1, 1)
    assert y.shape == (2, 3, 1, 0)
    y.grad = numpy.zeros(y.shape, numpy.float32)
    y.backward()
    assert x.grad.shape == x.shape
    assert not x.grad.any()


def test_negative_output_size():
    with pytest.raises(ValueError, match="negative output size"):
        functions.unpooling_nd(numpy.zeros((1, 1, 1), numpy.float32), 1, pad=2)


@pytest.mark.parametrize(
    ("func", "shape"),
    [(functions.unpooling_1d, (1, 1, 4, 4)), (functions.unpooling_3d, (1, 1, 4, 4))],
)
def test_wrong_spatial_rank(func, shape):
    with pytest.raises(ValueError, match="number of dimensions"):
        func(numpy.zeros(shape, numpy.float32), 2)


def test_invalid_dtype():
    with pytest.raises(type_check.InvalidType):
        functions.unpooling_nd(numpy.zeros((1, 1, 4), numpy.int32), 2)
